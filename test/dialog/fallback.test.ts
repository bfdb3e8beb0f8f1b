import t from 'tap';
import { FallbackDialog, ScriptedDialog, SPOKEN_FALLBACK_TEXT } from '../../src/dialog/index.js';
import { AdapterError, type DialogAdapter, type DialogEvent } from '../../src/adapters/types.js';
import { collect, turnRequest } from '../adapters/helpers/contract.js';

const failing = (code: AdapterError['code'], before: DialogEvent[] = []): DialogAdapter => ({
  async *turn() { for (const e of before) yield e; throw new AdapterError('dialog', code, `primary ${code}`); },
});

t.test('primary fails before replying: the scripted engine answers the turn', async (t) => {
  const seen: string[] = [];
  const d = new FallbackDialog(failing('timeout'), new ScriptedDialog(), { onFallback: (e, stage) => seen.push(`${e.code}:${stage}`) });
  const events = await collect(d.turn(turnRequest()));
  t.same(events, await collect(new ScriptedDialog().turn(turnRequest())));
  t.same(seen, ['timeout:before_reply']);
  const unavailable = await collect(new FallbackDialog(failing('unavailable'), new ScriptedDialog()).turn(turnRequest()));
  t.equal(unavailable[0].type, 'text');
});

t.test('primary fails mid-reply: apology spoken, escalation', async (t) => {
  const d = new FallbackDialog(failing('failed', [{ type: 'text', text: 'Let me check that' }]), new ScriptedDialog());
  t.same(await collect(d.turn(turnRequest())), [
    { type: 'text', text: 'Let me check that' },
    { type: 'text', text: SPOKEN_FALLBACK_TEXT },
    { type: 'escalate', reason: 'dialog_failed' },
  ]);
});

t.test('cancellation is not masked', async (t) => {
  const d = new FallbackDialog(failing('canceled'), new ScriptedDialog());
  await t.rejects(collect(d.turn(turnRequest())), { code: 'canceled' });
  const ctl = new AbortController();
  ctl.abort();
  const plain: DialogAdapter = { async *turn() { throw new Error('socket closed'); } };
  await t.rejects(collect(new FallbackDialog(plain, new ScriptedDialog()).turn(turnRequest(), { signal: ctl.signal })), AdapterError);
});

t.test('a healthy primary is passed through untouched', async (t) => {
  const d = new FallbackDialog(new ScriptedDialog(), failing('failed'));
  t.same(await collect(d.turn(turnRequest())), await collect(new ScriptedDialog().turn(turnRequest())));
});
