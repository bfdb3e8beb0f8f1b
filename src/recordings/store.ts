/**
 * Where recordings live: RECORDINGS_DIR/<call_id>.wav, else DATA_DIR/recordings, or a per-process temp dir when
 * DATA_DIR=memory.
 * A call's recording is written while the call runs (src/recordings/recorder.ts streams blocks of samples):
 * the file starts with a placeholder header, and finish() patches in the sizes once the length is known.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WAV_HEADER_BYTES, wavHeader } from '../audio/index.js';
import type { RecordingSink } from './recorder.js';

const CALL_ID = /^call_[0-9a-f]{24}$/;

export class RecordingStore {
  readonly dir: string;
  #dirMade = false;
  constructor(dataDir: string, recordingsDir?: string) {
    this.dir = recordingsDir ?? (dataDir === 'memory' ? join(tmpdir(), `vcs-recordings-${process.pid}`) : join(dataDir, 'recordings'));
  }

  /** Where a call's recording is (or would be) written. */
  pathOf(callId: string): string {
    if (!CALL_ID.test(callId)) throw new RangeError('bad call id');
    return join(this.dir, `${callId}.wav`);
  }

  /** A sink writing <call_id>.wav as the call runs; finish() resolves to its path (stored in calls.recording_path). */
  open(callId: string): RecordingSink {
    const path = this.pathOf(callId);
    if (!this.#dirMade) { mkdirSync(this.dir, { recursive: true }); this.#dirMade = true; } // once per process
    return new WavFileSink(path);
  }

  async read(path: string): Promise<Buffer | undefined> {
    return readFile(path).catch(() => undefined);
  }
}

/** 8 kHz PCM16 stereo (caller, agent) written in order; the first write error fails finish(). */
class WavFileSink implements RecordingSink {
  readonly #out: WriteStream;
  #error?: Error;

  constructor(private readonly path: string) {
    this.#out = createWriteStream(path);
    this.#out.on('error', (err) => { this.#error ??= err; });
    this.#out.write(new Uint8Array(WAV_HEADER_BYTES)); // sizes unknown until the end
  }

  write(pcm: Uint8Array): void { if (!this.#error) this.#out.write(pcm); }

  async finish(dataBytes: number): Promise<string> {
    if (!this.#out.writableFinished && !this.#out.destroyed) {
      await new Promise<void>((resolve) => { this.#out.end(resolve); this.#out.once('error', () => resolve()); });
    }
    if (this.#error) throw this.#error;
    const file = await open(this.path, 'r+');
    try {
      await file.write(wavHeader({ sampleRateHz: 8000, channels: 2, dataBytes }), 0, WAV_HEADER_BYTES, 0);
    } finally {
      await file.close();
    }
    return this.path;
  }
}
