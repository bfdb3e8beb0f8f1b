/** Where recordings live: DATA_DIR/recordings/<call_id>.wav, or a per-process temp dir when DATA_DIR=memory. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CALL_ID = /^call_[0-9a-f]{24}$/;

export class RecordingStore {
  readonly dir: string;
  constructor(dataDir: string) {
    this.dir = dataDir === 'memory' ? join(tmpdir(), `vcs-recordings-${process.pid}`) : join(dataDir, 'recordings');
  }

  /** Writes the file; returns its path (stored in calls.recording_path). */
  async save(callId: string, wav: Uint8Array): Promise<string> {
    if (!CALL_ID.test(callId)) throw new RangeError('bad call id');
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, `${callId}.wav`);
    await writeFile(path, wav);
    return path;
  }

  async read(path: string): Promise<Buffer | undefined> {
    return readFile(path).catch(() => undefined);
  }
}
