import t from 'tap';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

t.test('the pool worker loads under tsx (as npm start runs it)', async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/audio/fixtures/pool_smoke.ts'], { cwd: root });
  t.same(JSON.parse(stdout.trim()), ['SpeechStarted', 'SpeechStopped', 'TurnEnded']);
});
