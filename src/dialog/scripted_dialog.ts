/** The in-process DialogAdapter: streams planTurn's events, honouring deadline and abort (barge-in, hang-up). */
import type { AdapterCallOptions, DialogAdapter, DialogEvent, DialogTurnRequest } from '../adapters/types.js';
import { AdapterError } from '../adapters/types.js';
import { streamWithDeadline } from '../adapters/deadline.js';
import { planTurn } from './engine.js';

export interface ScriptedDialogOptions {
  /** clock for relative dates when the request carries no `now` */
  clock?: () => Date;
}

export class ScriptedDialog implements DialogAdapter {
  constructor(private readonly opts: ScriptedDialogOptions = {}) {}

  turn(req: DialogTurnRequest, opts?: AdapterCallOptions): AsyncIterable<DialogEvent> {
    const now = req.now ? new Date(req.now) : (this.opts.clock?.() ?? new Date());
    return streamWithDeadline('dialog', opts, async function* () {
      if (Number.isNaN(now.getTime())) throw new AdapterError('dialog', 'invalid', `now is not an ISO 8601 instant: ${req.now}`);
      for (const e of planTurn(req, now)) yield e;
    });
  }
}
