/** The in-process DialogAdapter: streams planTurn's events, honouring abort (barge-in, hang-up). */
import type { DialogAdapter, DialogEvent, DialogTurnOptions, DialogTurnRequest } from '../adapters/types.js';
import { AdapterError } from '../adapters/types.js';
import { planTurn, type ToolResults } from './engine.js';

export interface ScriptedDialogOptions {
  /** clock for relative dates when the request carries no `now` */
  clock?: () => Date;
}

export class ScriptedDialog implements DialogAdapter {
  constructor(private readonly opts: ScriptedDialogOptions = {}) {}

  /**
   * A plain generator over planTurn's events: the plan is computed at once, so a deadline around it would never
   * fire, and each wrapping generator adds promise hops that wait behind the other calls' work queued in the same
   * turn of the event loop. A call's adapters put their deadline around it (src/adapters/defaults.ts).
   *
   * With `opts.runTool` (a call runs tools for the dialog) the turn's tools run first and the turn is planned again
   * knowing their outcome, so the agent says "booked" or "sent" only for a tool that succeeded. Without it the
   * tools are announced as `tool_call` events and the agent only notes the request for the team.
   */
  async *turn(req: DialogTurnRequest, opts?: DialogTurnOptions): AsyncIterable<DialogEvent> {
    const now = req.now ? new Date(req.now) : (this.opts.clock?.() ?? new Date());
    if (Number.isNaN(now.getTime())) throw new AdapterError('dialog', 'invalid', `now is not an ISO 8601 instant: ${req.now}`);
    let events = planTurn(req, now);
    if (opts?.runTool && events.some((e) => e.type === 'tool_call')) {
      const results: ToolResults = {};
      for (const e of events) {
        if (e.type !== 'tool_call') continue;
        if (opts.signal?.aborted) throw new AdapterError('dialog', 'canceled', 'dialog call canceled');
        const outcome = await opts.runTool(e.tool, e.arguments);
        results[e.tool] = /^2\d\d_/.test(outcome.status);
      }
      events = planTurn(req, now, results).filter((e) => e.type !== 'tool_call');
    }
    for (const e of events) {
      if (opts?.signal?.aborted) throw new AdapterError('dialog', 'canceled', 'dialog call canceled');
      yield e;
    }
  }
}

