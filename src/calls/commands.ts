/**
 * Commands about a live call reach the instance that runs it (its owner: calls.instance_id, alive while its
 * engine_instances row is within the lease). A command is a request on the owner's bus channel and a reply on the
 * sender's, with a deadline: the owner's remaining lease. The owner runs the handler registered for the command's
 * type (hang-up, transfer, erasure's end, and whatever later features register) and answers with its result.
 * The sender learns whether the owner ran it; when not (the call is over, its owner is gone or did not answer in
 * time) the caller ends the call in storage and fences it (fence(): the owner, if it comes back, stops the call
 * and accepts the stored end). On the in-process bus (one process by design) another owner is never alive.
 */
import { randomBytes } from 'node:crypto';
import type { Bus } from '../bus/bus.js';
import type { Db } from '../db/db.js';
import { ApiError, type ErrorCode } from '../errors.js';
import type { Logger } from '../log.js';
import { isTerminal, type CallStatus } from './types.js';

/** A command: `type` names its handler; the rest is its JSON-serialisable arguments. */
export interface CallCommand { type: string; [arg: string]: unknown }
/** Runs on the owner with the call's id; what it returns (JSON) is the sender's result; an ApiError is passed back as one. */
export type CommandHandler = (callId: string, command: CallCommand) => Promise<unknown>;

export type SendOutcome =
  | { delivered: true; owner: string; result: unknown }
  /** ended: the call is over; owner_gone: no live owner; no_answer: the owner did not answer within its lease */
  | { delivered: false; why: 'not_found' | 'ended' | 'owner_gone' | 'no_answer'; owner: string | null; status?: CallStatus };

/** The least a sender waits for an owner whose lease is about to run out (it may renew meanwhile), ms. */
const MIN_DEADLINE_MS = 2000;

interface Request { id: string; from: string; call_id: string; command: CallCommand }
interface Fence { fence: string }
interface Reply { id: string; ok: boolean; result?: unknown; error?: { code: ErrorCode; detail: string } }

export interface CallCommandsOptions {
  db: Db; log: Logger; instanceId: string; leaseSeconds: number;
  /** unset: this process alone (commands for other owners are never delivered) */
  bus?: Bus;
  /** key prefix of the bus channels, so deployments sharing a Redis stay apart */
  channelPrefix?: string;
}

export class CallCommands {
  readonly #handlers = new Map<string, CommandHandler>();
  readonly #waiting = new Map<string, (r: Reply) => void>();
  #fence: (callId: string) => void = () => {};
  #erased: (callIds: string[]) => void = () => {};
  #unsubscribe: Array<() => void> = [];

  constructor(private readonly o: CallCommandsOptions) {}

  get instanceId(): string { return this.o.instanceId; }

  #channel(kind: 'commands' | 'replies' | 'erased', instanceId: string): string {
    return `${this.o.channelPrefix ?? 'voicecall:'}calls:${kind}:${instanceId}`;
  }

  /** Registers what this instance does on a command of `type` about one of its calls (one handler per type). */
  handle(type: string, handler: CommandHandler): void {
    if (this.#handlers.has(type)) throw new Error(`a handler for call command ${type} is already registered`);
    this.#handlers.set(type, handler);
  }

  /** What this instance does when another one ended one of its calls in storage: stop it, accept the end. */
  onFence(fence: (callId: string) => void): void { this.#fence = fence; }

  /** What this instance does when an erasure on any instance removed calls: delete their recordings on its disk. */
  onErased(erased: (callIds: string[]) => void): void { this.#erased = erased; }

  /**
   * Tells every instance (best effort: one not listening now misses it) that these calls were erased, so each
   * deletes the recording files it wrote for them: a call's recording is on the disk of the instance that ran it.
   */
  async erased(callIds: string[]): Promise<void> {
    if (!callIds.length) return;
    this.#erased(callIds);
    if (!this.o.bus || this.o.bus.kind === 'memory') return;
    await this.o.bus.publish(this.#channel('erased', 'all'), { call_ids: callIds, from: this.o.instanceId })
      .catch((err) => this.o.log.warn({ err }, 'could not tell the other instances to delete erased recordings'));
  }

  /** Listens on this instance's channels (no-op without a bus). */
  async start(): Promise<void> {
    const bus = this.o.bus;
    if (!bus) return;
    this.#unsubscribe.push(await bus.subscribe(this.#channel('commands', this.o.instanceId), (m) => { void this.#onRequest(m as Request | Fence); }));
    this.#unsubscribe.push(await bus.subscribe(this.#channel('replies', this.o.instanceId), (m) => {
      const r = m as Reply;
      this.#waiting.get(r.id)?.(r);
    }));
    this.#unsubscribe.push(await bus.subscribe(this.#channel('erased', 'all'), (m) => {
      const e = m as { call_ids?: unknown; from?: string };
      if (e.from !== this.o.instanceId && Array.isArray(e.call_ids)) this.#erased(e.call_ids.filter((x): x is string => typeof x === 'string'));
    }));
  }

  /**
   * Sends `command` to the owner of call `callId` (of `tenantId`) and resolves with its result, or says why it was
   * not run. A call this instance owns runs here without the bus. Errors the owner threw as ApiError are thrown.
   * `evenIfEnded`: delivered to a live owner after the call's end too (a carrier's last callbacks about it).
   */
  async send(tenantId: string, callId: string, command: CallCommand, opts: { evenIfEnded?: boolean } = {}): Promise<SendOutcome> {
    const r = await this.o.db.query<{ instance_id: string | null; status: CallStatus; remaining_ms: number | string | null }>(
      `SELECT c.instance_id, c.status,
         (extract(epoch FROM (e.seen_at + make_interval(secs => $3) - now())) * 1000)::float8 AS remaining_ms
       FROM calls c LEFT JOIN engine_instances e ON e.id = c.instance_id WHERE c.id = $1 AND c.tenant_id = $2`,
      [callId, tenantId, this.o.leaseSeconds]);
    const row = r.rows[0];
    if (!row) return { delivered: false, why: 'not_found', owner: null };
    const owner = row.instance_id;
    if (isTerminal(row.status) && !opts.evenIfEnded) return { delivered: false, why: 'ended', owner, status: row.status };
    if (owner === this.o.instanceId) return { delivered: true, owner, result: await this.#run(callId, command) };
    const remaining = row.remaining_ms === null ? null : Number(row.remaining_ms);
    if (!owner || !this.o.bus || this.o.bus.kind === 'memory' || remaining === null || remaining <= 0) {
      return { delivered: false, why: 'owner_gone', owner, status: row.status };
    }
    // a fifth of the lease short of its end: the call is then ended here as a hang-up before a sweep finds the
    // owner lost and ends it as instance_lost (either is a correct end; one wins, see lifecycle.ts)
    const deadline = Math.max(MIN_DEADLINE_MS, remaining - (this.o.leaseSeconds * 1000) / 5);
    const reply = await this.#ask(owner, { id: `cmd_${randomBytes(9).toString('hex')}`, from: this.o.instanceId, call_id: callId, command }, deadline);
    if (!reply) return { delivered: false, why: 'no_answer', owner, status: row.status };
    if (!reply.ok) throw new ApiError(reply.error?.code ?? 'internal', reply.error?.detail ?? 'the call command failed on its instance');
    return { delivered: true, owner, result: reply.result };
  }

  /** Tells `owner` (best effort) that its call was ended in storage by another instance. */
  async fence(owner: string | null, callId: string): Promise<void> {
    if (!owner) return;
    if (owner === this.o.instanceId) { this.#fence(callId); return; }
    if (!this.o.bus || this.o.bus.kind === 'memory') return;
    await this.o.bus.publish(this.#channel('commands', owner), { fence: callId } satisfies Fence)
      .catch((err) => this.o.log.warn({ err, call_id: callId }, 'could not tell the owner of a call that it was ended'));
  }

  async close(): Promise<void> {
    for (const u of this.#unsubscribe.splice(0)) u();
    for (const w of [...this.#waiting.values()]) w({ id: '', ok: false, error: { code: 'unavailable', detail: 'instance shutting down' } });
  }

  async #ask(owner: string, req: Request, deadlineMs: number): Promise<Reply | undefined> {
    const answered = new Promise<Reply | undefined>((resolve) => {
      const timer = setTimeout(() => { this.#waiting.delete(req.id); resolve(undefined); }, deadlineMs);
      this.#waiting.set(req.id, (reply) => { clearTimeout(timer); this.#waiting.delete(req.id); resolve(reply); });
    });
    try {
      await this.o.bus!.publish(this.#channel('commands', owner), req);
    } catch (err) {
      this.o.log.warn({ err, call_id: req.call_id }, 'a call command could not be published');
    }
    return answered;
  }

  async #run(callId: string, command: CallCommand): Promise<unknown> {
    const h = this.#handlers.get(command.type);
    if (!h) throw new ApiError('not_found', `no call command named ${command.type}`);
    return h(callId, command);
  }

  async #onRequest(m: Request | Fence): Promise<void> {
    if ('fence' in m) { this.#fence(m.fence); return; }
    let reply: Reply;
    try {
      reply = { id: m.id, ok: true, result: (await this.#run(m.call_id, m.command)) ?? null };
    } catch (err) {
      const e = err instanceof ApiError ? { code: err.code, detail: err.message } : { code: 'internal' as const, detail: 'the call command failed on its instance' };
      if (!(err instanceof ApiError)) this.o.log.error({ err, call_id: m.call_id, command: m.command.type }, 'a call command failed');
      reply = { id: m.id, ok: false, error: e };
    }
    await this.o.bus!.publish(this.#channel('replies', m.from), reply)
      .catch((err) => this.o.log.warn({ err, call_id: m.call_id }, 'a call command reply could not be published'));
  }
}
