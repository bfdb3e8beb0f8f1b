/**
 * Settings of the live providers (read once by src/config.ts). Every provider's base URL is a setting, so regional
 * endpoints, self-hosted servers speaking the same API and local fakes all work; http:// and ws:// are accepted.
 */
import { z } from 'zod';

const key = z.string().min(1).optional();
const url = (dflt: string) => z.string().url().default(dflt);
/** E.164, as carriers want the caller id */
const phone = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number (+ and digits)').optional();

export const providerSettings = {
  // Carrier
  CARRIER: z.enum(['simulator', 'twilio', 'plivo', 'exotel']).optional(),
  TWILIO_ACCOUNT_SID: key,
  TWILIO_AUTH_TOKEN: key,
  TWILIO_FROM_NUMBER: phone,
  TWILIO_API_BASE_URL: url('https://api.twilio.com'),
  PLIVO_AUTH_ID: key,
  PLIVO_AUTH_TOKEN: key,
  PLIVO_FROM_NUMBER: phone,
  PLIVO_API_BASE_URL: url('https://api.plivo.com'),
  EXOTEL_ACCOUNT_SID: key,
  EXOTEL_API_KEY: key,
  EXOTEL_API_TOKEN: key,
  EXOTEL_CALLER_ID: key,
  EXOTEL_APP_ID: key,
  EXOTEL_API_BASE_URL: url('https://api.in.exotel.com'),
  /** the deployment secret the flow's applet URLs carry (Exotel signs nothing): 16+ characters */
  EXOTEL_HOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  /** where a transfer to a human goes when the agent names no number of its own (E.164) */
  HUMAN_TRANSFER_NUMBER: phone,
  /** how long a placed call may ring before it ends as no_answer (carriers' own timeouts aside), s */
  RING_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(300).default(45),
  // Speech-to-text
  STT_PROVIDER: z.enum(['simulator', 'deepgram', 'openai']).optional(),
  DEEPGRAM_API_KEY: key,
  DEEPGRAM_API_URL: url('wss://api.deepgram.com/v1/listen'),
  DEEPGRAM_MODEL: z.string().min(1).default('nova-3'),
  OPENAI_STT_MODEL: z.string().min(1).default('gpt-4o-mini-transcribe'),
  // Dialog model (and the OpenAI-compatible endpoint shared with transcription)
  DIALOG_PROVIDER: z.enum(['scripted', 'openai']).optional(),
  OPENAI_API_KEY: key,
  OPENAI_BASE_URL: url('https://api.openai.com/v1'),
  OPENAI_MODEL: z.string().min(1).default('gpt-4o-mini'),
  // Text-to-speech
  TTS_PROVIDER: z.enum(['simulator', 'elevenlabs', 'cartesia']).optional(),
  ELEVENLABS_API_KEY: key,
  ELEVENLABS_API_URL: url('https://api.elevenlabs.io'),
  ELEVENLABS_VOICE_ID: key,
  ELEVENLABS_MODEL_ID: z.string().min(1).default('eleven_flash_v2_5'),
  CARTESIA_API_KEY: key,
  CARTESIA_API_URL: url('wss://api.cartesia.ai/tts/websocket'),
  CARTESIA_VOICE_ID: key,
  CARTESIA_MODEL_ID: z.string().min(1).default('sonic-2'),
  CARTESIA_VERSION: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a Cartesia API version date (YYYY-MM-DD)').default('2026-03-01'),
  // Integrations (tools)
  HUBSPOT_API_KEY: key,
  HUBSPOT_API_URL: url('https://api.hubapi.com'),
  /** call fields to portal properties, "budget:ai_budget,intent:ai_intent" (the properties must exist in HubSpot) */
  HUBSPOT_PROPERTY_MAP: z.string().regex(/^\s*([\w]+:[\w]+\s*(,\s*|$))*$/, 'must be field:property pairs separated by commas').optional(),
  CALCOM_API_KEY: key,
  CALCOM_API_URL: url('https://api.cal.com'),
  CALCOM_EVENT_TYPE_ID: z.coerce.number().int().positive().optional(),
  /** attendee email when the call learned none (Cal.com event types ask for one unless it is made optional) */
  CALCOM_DEFAULT_ATTENDEE_EMAIL: z.string().email().optional(),
  WHATSAPP_API_TOKEN: key,
  WHATSAPP_PHONE_NUMBER_ID: key,
  WHATSAPP_TEMPLATE_NAME: key,
  WHATSAPP_TEMPLATE_LANGUAGE: z.string().regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'must be a WhatsApp language code (en, en_US, hi)').default('en'),
  /** call values filling the template body's {{1}}, {{2}}, … in order, e.g. "customer_name,project_name" */
  WHATSAPP_TEMPLATE_PARAMS: z.string().regex(/^[\w,\s]*$/, 'must be argument names separated by commas').optional(),
  WHATSAPP_API_URL: url('https://graph.facebook.com/v21.0'),
};
