/**
 * The runtime settings an agent runs a call with, as the API accepts them: an agent's own (src/api/routes/agents.ts)
 * and a dispatch's inline agent (the client library's path). Below the API, so the dispatch schema and the agents'
 * routes share one definition.
 */
import { z } from 'zod';

export const LANGUAGE_TAG = /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|\d{3}))?$/;

/** Runtime settings of an agent; shared with the client-library dispatch path (inline agent). */
export const AgentRuntimeSettingsSchema = z.strictObject({
  role: z.string().min(1).max(200),
  voice: z.string().min(1).max(100),
  language: z.string().regex(LANGUAGE_TAG, 'must be a language tag such as en-US'),
  interruption_sensitivity: z.number().min(0).max(1),
  turn_detection_timeout_ms: z.number().int().min(200).max(5000),
});
