/**
 * Issue 33: every ended_reason the code can end a call with is documented. The source is read for the places a
 * call's end reason is given (the session's end(), hang-ups, the runner's #finish and end reasons, the service's
 * ends, the carrier outcomes that end a call), and each reason found must be in components.schemas.EndedReason of
 * the served OpenAPI document, with a description, and in the README's table. A dialog's end reason goes through
 * endedReasonOf, so no adapter can add one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer, api } from '../helpers/server.js';
import { endedReasonOf, ENDED_REASONS } from '../../src/calls/ended_reasons.js';

const root = new URL('../../', import.meta.url).pathname;

/**
 * Where a call's end reason is given; group 1 is the expression of the reason, whose quoted words are read. The
 * words of a condition in it that are statuses or events, not reasons, are NOT_REASONS.
 */
const REASON_SITES = [
  /\bend\(s, out, (.+?)\);/g, // the session machine's end
  /\.hangup\(([^()]*)\)/g, // a hang-up of the runner or the session
  /#finish\(\w+, (?:\[[^\]]*\]|[^,]+), [^,]+, (.+?)(?:, \{|\);)/g, // the runner's #finish(row, from, to, reason, …)
  /\bendReason = (.+?);/g,
  /#end\(\w+, \w+, (.+?)\)/g,
  /\bendCalls\([^)]*?, ('\w+')\)/g,
  /\bendInStorage\([^)]*?, ('\w+')\)/g,
  /\bconst UNANSWERED = ('\w+')/g,
  /\bconst CARRIER_END\b[^=]*= \{([^}]*)\}/g, // the carrier outcomes that end a call as themselves
];
const NOT_REASONS = new Set(['failed', 'stop']);
/** Given at a site above but never stored, with why. */
const NEVER_STORED: Record<string, string> = {
  ended_elsewhere: 'a fenced instance stops its session with it; its own end is refused, the stored end is the other instance\'s',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function reasonsInCode(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of sourceFiles(join(root, 'src'))) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (/^\s*(\*|\/\/)/.test(line)) return;
      for (const site of REASON_SITES) {
        for (const [, expr] of line.matchAll(site)) {
          const words = site.source.includes('CARRIER_END') ? [...expr.matchAll(/\b([a-z_]+):/g)] : [...expr.matchAll(/'([a-z]+(?:_[a-z]+)*)'/g)];
          for (const [, word] of words) if (!NOT_REASONS.has(word)) found.set(word, `${file.slice(root.length)}:${i + 1}`);
        }
      }
    });
  }
  return found;
}

const srv = await startTestServer();
t.teardown(() => srv.close());

t.test('every reason the code ends a call with is in the OpenAPI enum and the README', async (t) => {
  const doc = (await api(srv.baseUrl, 'GET', '/openapi.json')).body;
  const schema = doc.components.schemas.EndedReason;
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const found = reasonsInCode();
  // the scan finds what it must, or it would pass by finding nothing
  for (const r of ['hangup_api', 'caller_hangup', 'media_closed', 'caller_keypad', 'max_duration', 'server_shutdown', 'erased', 'carrier_failed', 'no_answer',
    'escalation_unanswered', 'adapter_failure', 'instance_lost', 'media_timeout', 'voicemail', 'transferred']) t.ok(found.has(r), `the scan finds ${r}`);
  for (const [reason, where] of found) {
    if (NEVER_STORED[reason]) continue;
    t.ok(schema.enum.includes(reason), `${reason} (${where}) is in components.schemas.EndedReason`);
    t.ok(readme.includes(`| \`${reason}\` |`), `${reason} (${where}) is in the README's table`);
  }
  t.same(schema.enum, ENDED_REASONS);
  for (const r of schema.enum) {
    t.ok(schema['x-enum-descriptions'][r]?.length > 10, `${r} has a description`);
    t.match(schema.description, `- ${r}: `);
  }
  t.match(doc.paths['/v1/calls/{id}'].get.summary, /components\.schemas\.EndedReason/);
});

t.test('a dialog\'s end reason is always a documented one', async (t) => {
  t.equal(endedReasonOf('opted_out'), 'opted_out');
  t.equal(endedReasonOf('not_interested'), 'caller_declined', 'a model\'s word for a decline');
  t.equal(endedReasonOf('mission_accomplished'), 'completed', 'an unknown reason from an adapter');
  // the reasons the dialogs give are documented too
  for (const r of ['completed', 'caller_declined', 'wrong_number', 'opted_out', 'callback_requested', 'no_response', 'escalated']) t.ok(ENDED_REASONS.includes(r as never), r);
});
