/**
 * The service secret (JWT signing, recording links, media-stream capabilities) when SERVICE_JWT_SECRET is unset:
 * generated once and kept in DATA_DIR/service_secret (mode 0600), so tokens and 7-day recording links survive
 * a restart of the embedded default. Created with O_EXCL, so two processes starting on one DATA_DIR agree on
 * one secret. A file readable by others is narrowed back to 0600.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const SECRET_FILE = 'service_secret';
const MIN_LENGTH = 32;

export async function persistentSecret(dataDir: string): Promise<string> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, SECRET_FILE);
  try {
    const fh = await open(path, 'wx', 0o600);
    const secret = randomBytes(32).toString('base64url');
    try { await fh.writeFile(`${secret}\n`); await fh.sync(); } finally { await fh.close(); }
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
  // A reader racing the creator may find the file still empty: wait for its content briefly.
  for (let i = 0; i < 50; i++) {
    const secret = (await readFile(path, 'utf8')).trim();
    if (secret.length >= MIN_LENGTH) return secret;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${path} holds no usable secret (at least ${MIN_LENGTH} characters): delete it or set SERVICE_JWT_SECRET`);
}
