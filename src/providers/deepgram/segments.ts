/**
 * The words of the caller's current turn as Deepgram gives them: final segments (is_final) collected in order
 * plus the interim text of the segment in progress. `soFar` is what barge-in reads; `take` ends the turn.
 */
import type { TranscriptResult } from '../../adapters/types.js';

interface Segment { text: string; startMs: number; endMs: number; confidence?: number }

export class TurnSegments {
  #finals: Segment[] = [];
  #interim = '';

  interim(text: string): void { this.#interim = text; }

  final(seg: Segment): void {
    this.#interim = '';
    if (seg.text) this.#finals.push(seg);
  }

  /** every word of the turn so far, final or not */
  soFar(): string { return [...this.#finals.map((s) => s.text), this.#interim].filter(Boolean).join(' '); }

  /** The turn's final words as one result (media times of its first and last segment, else `atMs`); starts the next. */
  take(atMs: number): TranscriptResult {
    const segs = this.#finals;
    this.#finals = [];
    this.#interim = '';
    const scored = segs.filter((s) => s.confidence !== undefined);
    return {
      text: segs.map((s) => s.text).join(' '), final: true, startMs: segs[0]?.startMs ?? atMs, endMs: segs.at(-1)?.endMs ?? atMs,
      ...(scored.length ? { confidence: scored.reduce((a, s) => a + s.confidence!, 0) / scored.length } : {}),
    };
  }
}
