/** Scripted dialog engine: deterministic agent for the simulator and as the fallback dialog model. */
export { planTurn, fillTemplate, BROCHURE_CONFIRMATION, BROCHURE_NOTED, ANYTHING_ELSE, STILL_THERE, CALLBACK_WHEN, OPT_OUT_TEXT, NOT_KNOWN_TEXT, type ToolResults } from './engine.js';
export { intentsOf, type Intent } from './intents.js';
export { lookupKnowledge, KNOWLEDGE_LIMITS, type KnowledgeEntry } from './knowledge.js';
export { ScriptedDialog, type ScriptedDialogOptions } from './scripted_dialog.js';
export { parseSlot, type SlotParse } from './slots.js';
export { extractName, extractIntent, extractBudget, qualificationScore, wantsHuman, wantsBrochure, declines } from './extract.js';
export { callbackInstant } from './callback.js';
export { isoWithOffset, spokenSlot, isValidTimeZone } from './zoned_time.js';
export { FallbackDialog, SPOKEN_FALLBACK_TEXT, type FallbackDialogOptions } from './fallback.js';
