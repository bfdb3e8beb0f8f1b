/**
 * What the fake phone's caller says: the turns of one corpus scenario (8 kHz mu-law WAV + manifest labels), each
 * followed by a silent gap long enough for the agent to answer, looped for as long as the call lasts. Built once
 * and shared by every call; each call reads it from its own position.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeMulaw, MULAW_SILENCE } from './g711.js';
import type { FakeSettings } from './settings.js';

interface Manifest { scenarios: Array<{ name: string; segments: Array<{ kind: string; turnIndex?: number; startMs: number; endMs: number }> }> }

export interface CallerAudio {
  /** silence before the first turn (the agent's opening) */
  lead: Uint8Array;
  /** the turns and gaps, looped */
  cycle: Uint8Array;
  /** caller turns per cycle */
  turns: number;
}

export function loadCallerAudio(s: FakeSettings): CallerAudio {
  const manifest = JSON.parse(readFileSync(path.join(s.corpusDir, 'manifest.json'), 'utf8')) as Manifest;
  const scenario = manifest.scenarios.find((x) => x.name === s.corpusScenario);
  if (!scenario) throw new Error(`FAKE_CORPUS_SCENARIO ${s.corpusScenario} is not in ${s.corpusDir}/manifest.json`);
  const data = wavData(readFileSync(path.join(s.corpusDir, `${scenario.name}.wav`)));
  const spans = new Map<number, { startMs: number; endMs: number }>();
  for (const seg of scenario.segments) {
    if (seg.kind !== 'speech' || seg.turnIndex === undefined) continue;
    const t = spans.get(seg.turnIndex);
    spans.set(seg.turnIndex, t ? { startMs: Math.min(t.startMs, seg.startMs), endMs: Math.max(t.endMs, seg.endMs) } : { startMs: seg.startMs, endMs: seg.endMs });
  }
  const parts: Uint8Array[] = [];
  for (const t of [...spans.values()].sort((a, b) => a.startMs - b.startMs)) {
    parts.push(data.subarray(t.startMs * 8, t.endMs * 8), silence(s.callerGapMs));
  }
  return { lead: silence(s.callerLeadMs), cycle: Buffer.concat(parts), turns: spans.size };
}

/** 8 kHz mu-law frames of `ms`, whole 20 ms frames */
const silence = (ms: number) => new Uint8Array(Math.round(ms / 20) * 160).fill(MULAW_SILENCE);

/** the samples of a RIFF/WAVE file's data chunk (format code 7, mu-law) */
function wavData(buf: Buffer): Uint8Array {
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file');
  for (let off = 12; off + 8 <= buf.length;) {
    const id = buf.toString('ascii', off, off + 4);
    const size = buf.readUInt32LE(off + 4);
    if (id === 'fmt ' && buf.readUInt16LE(off + 8) !== 7) throw new Error('the caller audio must be mu-law (format code 7)');
    if (id === 'data') return new Uint8Array(buf.buffer, buf.byteOffset + off + 8, Math.min(size, buf.length - off - 8));
    off += 8 + size + (size & 1);
  }
  throw new Error('WAV file without a data chunk');
}

/** Reads the caller's audio in order: the lead, then the cycle again and again. */
export class CallerCursor {
  #pos = 0;
  constructor(private readonly a: CallerAudio) {}
  /** the next `bytes` mu-law bytes */
  next(bytes: number): Uint8Array {
    const out = new Uint8Array(bytes);
    for (let i = 0; i < bytes; i++, this.#pos++) {
      const p = this.#pos;
      out[i] = p < this.a.lead.length ? this.a.lead[p] : this.a.cycle[(p - this.a.lead.length) % this.a.cycle.length];
    }
    return out;
  }
  /** the same as 16-bit little-endian linear PCM (Exotel) */
  nextPcm(samples: number): Buffer {
    const pcm = decodeMulaw(this.next(samples));
    return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  }
}
