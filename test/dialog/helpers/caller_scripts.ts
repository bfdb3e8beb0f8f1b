/**
 * Conversations written as a caller would speak them, with what the agent must make of them. test/dialog/
 * scripts_text_and_audio.test.ts plays each one through the demo route twice: as text turns, and as speech in the
 * offline voice through a phone line (audio turns the grammar recogniser hears). A script whose lines the grammar
 * does not cover is `textOnly`, with the reason, so the audio run says so instead of skipping silently.
 */
export interface Outcome {
  /** fields the replies extracted (a RegExp where the value depends on today's date) */
  fields?: Record<string, string | RegExp>;
  /** the conversation's ending (agent.ended), null if it still runs */
  ended?: string | null;
  /** the escalation the agent asked for */
  escalation?: string;
  /** what one of the agent's replies says */
  says?: RegExp;
}

export interface CallerScript {
  name: string;
  /** what the caller says, one line per turn (the first line gets the disclosure and greeting before its answer) */
  lines: string[];
  expect: Outcome;
  /** why these lines cannot go through the grammar recogniser */
  textOnly?: string;
  /**
   * Lines the grammar covers but the recogniser mishears in the offline voice (deterministic: same audio, same
   * model): the audio run is reported as a tap todo with what it heard, and counted as failed in the table.
   */
  audioMisheard?: string;
}

/** The knowledge the scripts' agent has (PUT on the tenant's default agent). */
export const SCRIPT_KNOWLEDGE = [{ question: 'Is there parking?', answer: 'Every flat comes with two covered parking spaces.' }];

export const CALLER_SCRIPTS: CallerScript[] = [
  {
    name: 'a lead answers every question, then says goodbye',
    lines: ['My name is Priya.', 'I am looking for a villa.', 'About eighty lakh rupees.', 'Tomorrow at eleven.', 'Goodbye.'],
    expect: { fields: { customer_name: 'Priya', intent: /villa/, budget: '8000000 INR', scheduled_slot: /T11:00:00\+/ }, ended: 'completed',
      says: /noted .* as your preferred time/ },
  },
  {
    name: 'amounts as said: one point two crore',
    lines: ['My name is Ravi.', 'I want a flat.', 'One point two crore.'],
    expect: { fields: { customer_name: 'Ravi', budget: '12000000 INR' }, ended: null },
  },
  {
    name: 'a day and a time in words: Friday four p m',
    lines: ['My name is Meera.', 'A house.', 'Fifty lakh rupees.', 'Friday four p m.'],
    expect: { fields: { customer_name: 'Meera', scheduled_slot: /T16:00:00\+/ } },
    audioMisheard: '"A house." and "Friday four p m." in kal16 are rejected as garbage (heard "")',
  },
  {
    name: 'stop calling: opted out',
    lines: ['My name is Karan.', 'Stop calling me.'],
    expect: { fields: { customer_name: 'Karan' }, ended: 'opted_out', says: /don't want any more calls/ },
  },
  {
    name: 'not interested: a polite end',
    lines: ['I am not interested.'],
    expect: { ended: 'caller_declined', says: /Thank you for your time/ },
  },
  {
    name: 'a person, please: handed over',
    lines: ['Can I talk to a real person please?'],
    expect: { escalation: 'caller_requested_human' },
  },
  {
    name: 'who is this: answered, then the question again',
    lines: ['Who is this?', 'My name is Anna.'],
    expect: { fields: { customer_name: 'Anna' }, says: /AI assistant for our team/ },
    audioMisheard: '"My name is Anna." in kal16 is heard as "my name is emma"',
  },
  {
    name: 'repeat that: the question again',
    lines: ['Could you repeat that please?', 'My name is Rahul.'],
    expect: { fields: { customer_name: 'Rahul' } },
  },
  {
    name: 'call me later, then the time when asked',
    lines: ['My name is Neha.', 'Call me later.', 'Tomorrow at five p m.'],
    expect: { fields: { customer_name: 'Neha', callback_at: /T17:00:00\+/ }, ended: 'callback_requested' },
    audioMisheard: '"My name is Neha." in kal16 is heard as "my name is sneha" (the call-back itself is understood)',
  },
  {
    name: 'call me later with the time in the same sentence',
    lines: ['My name is Neha.', 'Call me back tomorrow at five p m.'],
    expect: { fields: { customer_name: 'Neha', callback_at: /T17:00:00\+/ }, ended: 'callback_requested' },
    textOnly: 'the always-on "later" phrases of the grammar take no time ("call me back tomorrow"): a time inside the request is not in it',
  },
  {
    name: 'a question from the knowledge base',
    lines: ['My name is Asha.', 'Is there parking?'],
    expect: { fields: { customer_name: 'Asha' }, says: /two covered parking spaces/ },
    textOnly: 'open questions for the knowledge base are outside the grammar (it rejects them and the agent asks again)',
  },
  {
    name: 'a question the agent cannot answer is recorded',
    lines: ['My name is Vikram.', 'Do you allow pets?'],
    expect: { fields: { customer_name: 'Vikram', open_questions: 'Do you allow pets?' }, says: /team will follow up/ },
    textOnly: 'open questions are outside the grammar',
  },
  {
    name: 'wrong number',
    lines: ['Sorry, you have the wrong number.'],
    expect: { ended: 'wrong_number' },
    textOnly: 'the grammar has no wrong-number phrase',
  },
];
