/**
 * How a caller says yes and no to a yes/no question. The dialog reads a reply by its first words ("yes, that works"
 * is a yes); the offline ears listen for the same phrases, so what they hear is what the dialog understands.
 */
export const YES_PHRASES = ['yes', 'yeah', 'yep', 'yup', 'sure', 'ok', 'okay', 'alright', 'all right', 'right', 'correct',
  'fine', 'of course', 'definitely', 'absolutely', "that's right", 'that is right', 'sounds good', 'that works', 'go ahead'];
export const NO_PHRASES = ['no', 'nope', 'nah', 'not really', 'not yet', 'never', 'not quite', "that's wrong", 'wrong'];

const leadingOne = (phrases: string[]) => new RegExp(`^(?:${phrases.join('|')})\\b`, 'i');
/** a reply that opens with a yes */
export const AFFIRMATIVE = leadingOne(YES_PHRASES);
/** a reply that opens with a no */
export const NEGATIVE = leadingOne(NO_PHRASES);
