/** Builds WAV byte images with any header quirk, for reader tests. */
export interface WavSpec {
  formatCode?: number;      // 1 PCM, 3 float, 6 A-law, 7 mu-law, 0xfffe extensible
  channels?: number;
  sampleRateHz?: number;
  bitsPerSample?: number;
  blockAlign?: number;
  /** For 0xfffe: the SubFormat code and valid bits. */
  subFormat?: number;
  validBits?: number;
  /** Extra bytes appended to the fmt body (after cbSize when present). */
  fmtExtra?: number[];
  /** Write cbSize (18-byte fmt) for non-extensible formats. */
  cbSize?: boolean;
  chunksBefore?: { id: string; body: Uint8Array }[];
  chunksAfter?: { id: string; body: Uint8Array }[];
  data: Uint8Array;
  /** Override the data chunk's size field (0, 0xFFFFFFFF, ...). */
  dataSize?: number;
  riffId?: string;
  form?: string;
  dataBeforeFmt?: boolean;
}

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const u32 = (n: number) => { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, n >>> 0, true); return b; };
const u16 = (n: number) => { const b = new Uint8Array(2); new DataView(b.buffer).setUint16(0, n, true); return b; };

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

export function chunk(id: string, body: Uint8Array, sizeField = body.length): Uint8Array {
  return concat([ascii(id), u32(sizeField), body, body.length & 1 ? new Uint8Array(1) : new Uint8Array(0)]);
}

export function fmtBody(s: Omit<WavSpec, 'data'>): Uint8Array {
  const formatCode = s.formatCode ?? 1;
  const channels = s.channels ?? 1;
  const rate = s.sampleRateHz ?? 8000;
  const bits = s.bitsPerSample ?? 16;
  const blockAlign = s.blockAlign ?? channels * Math.ceil(bits / 8);
  const parts = [u16(formatCode), u16(channels), u32(rate), u32(rate * blockAlign), u16(blockAlign), u16(bits)];
  if (formatCode === 0xfffe) {
    const guidTail = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71];
    parts.push(u16(22), u16(s.validBits ?? bits), u32(channels === 2 ? 3 : 4), u16(s.subFormat ?? 1), Uint8Array.from(guidTail));
  } else if (s.cbSize) {
    parts.push(u16(s.fmtExtra?.length ?? 0));
  }
  if (s.fmtExtra) parts.push(Uint8Array.from(s.fmtExtra));
  return concat(parts);
}

export function buildWav(s: WavSpec): Uint8Array {
  const fmt = chunk('fmt ', fmtBody(s));
  const data = chunk('data', s.data, s.dataSize ?? s.data.length);
  const before = (s.chunksBefore ?? []).map((c) => chunk(c.id, c.body));
  const after = (s.chunksAfter ?? []).map((c) => chunk(c.id, c.body));
  const body = s.dataBeforeFmt ? [data, fmt, ...after] : [fmt, ...before, data, ...after];
  const inner = concat([ascii(s.form ?? 'WAVE'), ...body]);
  return concat([ascii(s.riffId ?? 'RIFF'), u32(inner.length), inner]);
}

export const le16 = (xs: number[]) => new Uint8Array(Int16Array.from(xs).buffer);
export const le32f = (xs: number[]) => new Uint8Array(Float32Array.from(xs).buffer);
export const le64f = (xs: number[]) => new Uint8Array(Float64Array.from(xs).buffer);
export const le32i = (xs: number[]) => new Uint8Array(Int32Array.from(xs).buffer);
export const le24 = (xs: number[]) => Uint8Array.from(xs.flatMap((x) => [x & 0xff, (x >> 8) & 0xff, (x >> 16) & 0xff]));
export const hexBytes = (s: string) => Uint8Array.from(s.trim().split(/\s+/).map((h) => parseInt(h, 16)));
