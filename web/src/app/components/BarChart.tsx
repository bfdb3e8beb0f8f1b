/**
 * Bar charts with Chart.js (only the bar parts are registered, to keep the bundle small). A canvas is a picture
 * to assistive technology, so each chart has a one-line summary as its label and its numbers as a table.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export interface Series { label: string; data: number[] }

/** Colour-blind-safe (Okabe-Ito) hues, each at least 3:1 against white. */
const COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#8a6d00', '#56449a'];

interface Props {
  title: string;
  /** what the labels are (the table's first column), e.g. Day */
  category: string;
  labels: string[];
  series: Series[];
  summary: string;
  stacked?: boolean;
  horizontal?: boolean;
  unit?: string;
  height?: number;
}

export function BarChart({ title, category, labels, series, summary, stacked, horizontal, unit = '', height = 240 }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart<'bar'>>(undefined);

  useEffect(() => {
    chart.current = new Chart(canvas.current!, {
      type: 'bar',
      data: { labels: [], datasets: [] },
      options: {
        animation: false,
        maintainAspectRatio: false,
        indexAxis: horizontal ? 'y' : 'x',
        plugins: {
          legend: { display: series.length > 1, position: 'bottom' },
          tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${c.formattedValue}${unit}` } },
        },
        scales: {
          x: { stacked, ...(horizontal ? { beginAtZero: true } : {}) },
          y: { stacked, ...(horizontal ? {} : { beginAtZero: true, ticks: { precision: 0 } }) },
        },
      },
    });
    return () => chart.current?.destroy();
  }, []);

  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    c.data.labels = labels;
    c.data.datasets = series.map((s, i) => ({ label: s.label, data: s.data, backgroundColor: COLORS[i % COLORS.length], borderRadius: 3 }));
    c.update();
  }, [labels.join('|'), JSON.stringify(series)]);

  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div class="chart-box" style={{ height: `${height}px` }}>
        <canvas ref={canvas} role="img" aria-label={`${title}: ${summary}`} />
      </div>
      <details>
        <summary>Show the numbers</summary>
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">{category}</th>{series.map((s) => <th scope="col" key={s.label}>{s.label}</th>)}</tr></thead>
            <tbody>
              {labels.map((l, i) => (
                <tr key={l}><th scope="row">{l}</th>{series.map((s) => <td key={s.label}>{fmt(s.data[i])}{unit}</td>)}</tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

const fmt = (v: number | undefined) => (v === undefined ? '–' : Number.isInteger(v) ? String(v) : v.toFixed(1));
