/** Scripted dialog engine: deterministic agent for the simulator and as the fallback dialog model. */
export { planTurn, fillTemplate, BROCHURE_CONFIRMATION } from './engine.js';
export { ScriptedDialog, type ScriptedDialogOptions } from './scripted_dialog.js';
export { parseSlot, type SlotParse } from './slots.js';
export { extractName, extractIntent, extractBudget, qualificationScore, wantsHuman, wantsBrochure, declines } from './extract.js';
export { isoWithOffset, spokenSlot, isValidTimeZone } from './zoned_time.js';
export { FallbackDialog, SPOKEN_FALLBACK_TEXT, type FallbackDialogOptions } from './fallback.js';
