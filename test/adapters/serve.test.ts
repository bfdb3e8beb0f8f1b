/** `npm run adapters` as a real process: prints its bound address, serves the simulators, stops on SIGTERM. */
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createAdapters } from '../../src/adapters/index.js';
import { collect, turnRequest } from './helpers/contract.js';

t.test('adapter server process', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/adapters/serve.ts'], {
    env: { ...process.env, ADAPTERS_LISTEN: '127.0.0.1:0' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  let out = '';
  while (!/listening on (\S+)/.test(out)) {
    const [chunk] = await once(child.stdout!, 'data');
    out += String(chunk);
  }
  const address = /listening on (\S+)/.exec(out)![1];
  t.match(address, /^127\.0\.0\.1:\d+$/);
  t.notMatch(address, /:0$/, 'prints the real port');
  const set = createAdapters({ ADAPTER_DIALOG_URL: address, ADAPTER_CARRIER_URL: address, ADAPTER_TIMEOUT_MS: 5000 });
  const events = await collect(set.dialog.turn(turnRequest()));
  t.equal(events[0].type, 'text');
  t.equal((await set.carrier.placeCall({ callId: 'c', tenantId: 't', to: '+15005550002', mediaUrl: 'wss://x/m', parameters: {} })).outcome, 'busy');
  await set.close();
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  t.equal(code, 0, 'clean exit on SIGTERM');
});
