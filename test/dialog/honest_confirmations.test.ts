/**
 * Issue 33, "It claims actions it never took": "Great, I have you down for Saturday, December 5 at 10:00 AM" in
 * the demo, which has no calendar, and on a lead call with actions_triggered: []. "Booked" and "sent" are said only
 * when the tool ran and succeeded; otherwise the preferred time (or the request) is noted for the team.
 */
import t from 'tap';
import { converse, textOf } from './helpers/converse.js';
import { ScriptedDialog } from '../../src/dialog/index.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';
import type { DialogEvent, DialogTurnRequest, ToolOutcome } from '../../src/adapters/types.js';

const lines = ['Anna', 'a villa, can you send me the brochure?', '50 lakh', 'tomorrow at 10 am'];

t.test('no calendar (the demo): the time is noted, nothing claimed', async (t) => {
  const c = converse(lines, { tools: [] });
  const all = textOf(c.turns.flat());
  t.notMatch(all, /booked|have you down|sent you|right away/i);
  t.match(all, /I've noted Monday, November 23 at 10:00 AM as your preferred time, and the team will confirm the visit/);
  t.equal(c.extracted.scheduled_slot, '2026-11-23T10:00:00+05:30', 'the slot is still extracted');
});

t.test('tools announced but not run (their outcome unknown): noted, not claimed', async (t) => {
  const all = textOf(converse(lines).turns.flat());
  t.notMatch(all, /booked|sent you/i);
  t.match(all, /asked the team to send you the brochure/);
});

t.test('tools that succeeded: booked and sent', async (t) => {
  const all = textOf(converse(lines, {}, { results: { calendar_booking: true, messaging_brochure: true } }).turns.flat());
  t.match(all, /You're booked for a site visit on Monday, November 23 at 10:00 AM\./);
  t.match(all, /I've sent you the brochure\./);
});

t.test('tools that failed: noted, not claimed', async (t) => {
  const all = textOf(converse(lines, {}, { results: { calendar_booking: false, messaging_brochure: false } }).turns.flat());
  t.notMatch(all, /booked|sent you/i);
});

async function turn(d: ScriptedDialog, req: DialogTurnRequest, runTool?: (tool: string) => Promise<ToolOutcome>) {
  const out: DialogEvent[] = [];
  for await (const e of d.turn(req, runTool ? { runTool } : {})) out.push(e);
  return out;
}

t.test('ScriptedDialog runs the tools through runTool and speaks from their outcome', async (t) => {
  const req: DialogTurnRequest = {
    callId: 'c', agent: DEFAULT_AGENT, context: {}, tools: ['calendar_booking'], callerText: 'tomorrow at 10 am please',
    history: [{ role: 'agent', text: 'When would suit you for a site visit?' }],
    extracted: { customer_name: 'Anna', intent: 'a villa', budget: '5000000 INR' }, now: '2026-11-22T18:00:00Z', timeZone: 'Asia/Kolkata',
  };
  const ran: string[] = [];
  const ok = await turn(new ScriptedDialog(), req, async (tool) => { ran.push(tool); return { type: 'calendar.event.create', status: '201_created' }; });
  t.same(ran, ['calendar_booking']);
  t.notOk(ok.some((e) => e.type === 'tool_call'), 'run, so not announced again');
  t.match(textOf(ok), /You're booked/);
  const failed = await turn(new ScriptedDialog(), req, async () => ({ type: 'calendar.event.create', status: '503_unavailable' }));
  t.notMatch(textOf(failed), /booked/);
  t.match(textOf(failed), /team will confirm/);
  const announced = await turn(new ScriptedDialog(), req);
  t.ok(announced.some((e) => e.type === 'tool_call'), 'without runTool the tool is announced');
  t.notMatch(textOf(announced), /booked/);
});
