/** RFC 4180 CSV with spreadsheet formula injection neutralised in free-text cells. */
const FORMULA = /^[=+\-@\t\r]/;

export function csvCell(v: unknown, freeText = false): string {
  let s = v == null ? '' : String(v);
  if (freeText && FORMULA.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv<T extends object>(rows: T[], columns: (keyof T & string)[], freeText: (keyof T & string)[] = []): string {
  const lines = [columns.join(',')];
  for (const r of rows) lines.push(columns.map((c) => csvCell((r as Record<string, unknown>)[c], freeText.includes(c))).join(','));
  return lines.join('\r\n') + '\r\n';
}
