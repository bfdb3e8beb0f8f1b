/** The in-process DialogAdapter: streams planTurn's events, honouring abort (barge-in, hang-up). */
import type { AdapterCallOptions, DialogAdapter, DialogEvent, DialogTurnRequest } from '../adapters/types.js';
import { AdapterError } from '../adapters/types.js';
import { planTurn } from './engine.js';

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
   */
  async *turn(req: DialogTurnRequest, opts?: AdapterCallOptions): AsyncIterable<DialogEvent> {
    const now = req.now ? new Date(req.now) : (this.opts.clock?.() ?? new Date());
    if (Number.isNaN(now.getTime())) throw new AdapterError('dialog', 'invalid', `now is not an ISO 8601 instant: ${req.now}`);
    for (const e of planTurn(req, now)) {
      if (opts?.signal?.aborted) throw new AdapterError('dialog', 'canceled', 'dialog call canceled');
      yield e;
    }
  }
}
