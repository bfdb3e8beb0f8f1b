/** What a call produced, gathered while it runs: history, entities, actions, per-turn latency, interruptions. */
import type { DialogMessage } from '../adapters/types.js';
import type { CallMetrics, TurnLatency } from '../calls/types.js';

export function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export class CallLedger {
  readonly history: DialogMessage[] = [];
  readonly extracted: Record<string, string | number> = {};
  readonly actions: Array<{ type: string; status: string }> = [];
  readonly turns: TurnLatency[] = [];
  interruptions = 0;
  backchannels = 0;
  fallbacks = 0;
  humanEscalation = false;
  /** when the AI disclosure finished playing in full (null: never, e.g. the caller hung up during it) */
  disclosureDeliveredAt: Date | null = null;
  framesIn = 0;
  framesOut = 0;

  metrics(): CallMetrics {
    const totals = this.turns.map((t) => t.total_ms).sort((a, b) => a - b);
    const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);
    return {
      latency_p50_ms: round(percentile(totals, 50)), latency_p99_ms: round(percentile(totals, 99)), turn_count: this.turns.length,
      turns: this.turns, interruptions_handled: this.interruptions, backchannels_recovered: this.backchannels,
      frames_in: this.framesIn, frames_out: this.framesOut, fallbacks: this.fallbacks,
    };
  }
}
