import { randomBytes } from 'node:crypto';

// One randomBytes call per 512 ids: a syscall and a buffer per id showed in the dispatch profile.
const ID_BYTES = 12;
const POOL_BYTES = ID_BYTES * 512;
let pool = Buffer.alloc(0);
let offset = 0;

/** `prefix_` + 24 lowercase hex (96 random bits), e.g. call_9f1c…; GUIDE's id form for every resource. */
export function newId(prefix: string): string {
  return `${prefix}_${randomHex(ID_BYTES)}`;
}

/** 2 × `bytes` lowercase hex from the same pool (other id forms, e.g. the simulator's carrier call ids); bytes ≤ 64. */
export function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) { pool = randomBytes(POOL_BYTES); offset = 0; }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}
