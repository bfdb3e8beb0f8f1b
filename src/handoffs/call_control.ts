/**
 * What an operator's move does to a live call: functions on the call's owner (the runner that holds its media).
 * Single instance here: the owner is this process's runner. Routing a move to another instance's runner (over the
 * bus, with a deadline) plugs in behind this same interface.
 */
export interface OperatorCallControl {
  /** the operator took the call: the agent stops speaking. False: the call is not live here */
  joined(callId: string, operator: string): boolean;
  /** the operator's message, spoken to the caller */
  spoke(callId: string, text: string): boolean;
  /** the operator is done: the agent takes over again, or the call ends (transferred to the operator) */
  left(callId: string, then: 'agent' | 'end'): boolean;
}

/** The runner of this process as the owner of its calls. */
export function localCallControl(runner: {
  operatorJoined(callId: string, operator: string): boolean; operatorSpoke(callId: string, text: string): boolean;
  operatorLeft(callId: string, then: 'agent' | 'end'): boolean;
}): OperatorCallControl {
  return {
    joined: (callId, operator) => runner.operatorJoined(callId, operator),
    spoke: (callId, text) => runner.operatorSpoke(callId, text),
    left: (callId, then) => runner.operatorLeft(callId, then),
  };
}
