/**
 * What an operator's move does to a live call: it runs on the call's owner (the instance whose runner holds its
 * media), sent there over the call command channel (src/calls/commands.ts) whichever instance the operator's request
 * reached. Each move answers whether the owner had the call live; a call that is over, or whose owner is gone,
 * answers false (the handoff's stored state is what the API reports either way).
 */
import type { CallCommands } from '../calls/commands.js';

export type OperatorMove = { move: 'joined'; operator: string } | { move: 'spoke'; text: string } | { move: 'left'; then: 'agent' | 'end' }
  | { move: 'audio'; operator: string };

/** Where the operator's softphone joins a call's audio: the owner's own socket address, and a single-use capability. */
export interface OperatorAudioTicket { media_url: string; token: string }

export interface OperatorCallControl {
  /** the operator took the call: the agent stops speaking */
  joined(tenantId: string, callId: string, operator: string): Promise<boolean>;
  /** the operator's message, spoken to the caller */
  spoke(tenantId: string, callId: string, text: string): Promise<boolean>;
  /** the operator is done: the agent takes over again, or the call ends (transferred to the operator) */
  left(tenantId: string, callId: string, then: 'agent' | 'end'): Promise<boolean>;
  /** the operator's ticket to the call's audio, issued by the owner (undefined: not live there, or not this operator's) */
  audio(tenantId: string, callId: string, operator: string): Promise<OperatorAudioTicket | undefined>;
}

/** The runner's side: what the owner does with a move on a call it runs (false: not live here). */
export interface OperatorMoves {
  operatorJoined(callId: string, operator: string): boolean; operatorSpoke(callId: string, text: string): boolean;
  operatorLeft(callId: string, then: 'agent' | 'end'): boolean;
  /** the operator's ticket to the call's audio, when that operator has the call live here */
  operatorAudio(callId: string, operator: string): OperatorAudioTicket | undefined;
}

const OPERATOR_COMMAND = 'operator';

/** Registers the owner's handler of operator moves with `commands` and returns the control that sends them. */
export function routedCallControl(commands: Pick<CallCommands, 'handle' | 'send'>, runner: OperatorMoves): OperatorCallControl {
  commands.handle(OPERATOR_COMMAND, async (callId, c) => {
    const m = c as unknown as OperatorMove;
    if (m.move === 'audio') {
      const ticket = typeof m.operator === 'string' ? runner.operatorAudio(callId, m.operator) : undefined;
      return { live: !!ticket, ...(ticket ? { ticket } : {}) };
    }
    return { live: runMove(runner, callId, m) };
  });
  const send = async (tenantId: string, callId: string, m: OperatorMove) => {
    const r = await commands.send(tenantId, callId, { type: OPERATOR_COMMAND, ...m });
    return r.delivered && (r.result as { live?: unknown } | null)?.live === true;
  };
  return {
    joined: (tenantId, callId, operator) => send(tenantId, callId, { move: 'joined', operator }),
    spoke: (tenantId, callId, text) => send(tenantId, callId, { move: 'spoke', text }),
    left: (tenantId, callId, then) => send(tenantId, callId, { move: 'left', then }),
    audio: async (tenantId, callId, operator) => {
      const r = await commands.send(tenantId, callId, { type: OPERATOR_COMMAND, move: 'audio', operator });
      const ticket = r.delivered ? (r.result as { ticket?: OperatorAudioTicket } | null)?.ticket : undefined;
      return typeof ticket?.media_url === 'string' && typeof ticket.token === 'string' ? ticket : undefined;
    },
  };
}

function runMove(runner: OperatorMoves, callId: string, m: OperatorMove): boolean {
  switch (m.move) {
    case 'joined': return typeof m.operator === 'string' && runner.operatorJoined(callId, m.operator);
    case 'spoke': return typeof m.text === 'string' && runner.operatorSpoke(callId, m.text);
    case 'left': return (m.then === 'agent' || m.then === 'end') && runner.operatorLeft(callId, m.then);
    case 'audio': return false; // answered with its ticket above
    default: return false;
  }
}
