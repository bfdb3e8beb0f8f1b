/**
 * What the dialer needs from other areas, as narrow ports: the call engine (deps.calls: dispatch and
 * onCallEnded) and the do-not-disturb / consent / calling-hours gate (src/leads/gates.ts). services.ts adapts
 * the real ones; tests and the bench inject their own.
 */
export interface CampaignDispatchInput {
  to: string;
  agent_id: string;
  context: Record<string, string>;
  tools?: string[];
  webhook_url?: string;
  campaign_id: string;
}

export interface EndedCall { id: string; status: string; campaign_id?: string | null }

export interface CampaignCallPort {
  /** `dndAt`: do-not-disturb checked again where the call is stored (an entry added after the dialer's gate) */
  dispatch(tenantId: string, input: CampaignDispatchInput, checks?: { dndAt: Date }): Promise<{ id: string; status: string }>;
  onCallEnded?(listener: (call: EndedCall) => void): void;
}

export type GateDecision =
  | { action: 'allow' }
  | { action: 'block'; reason: string }
  | { action: 'schedule'; at: Date; reason: string };

export type CallGate = (tenantId: string, e164: string, now: Date) => Promise<GateDecision>;


