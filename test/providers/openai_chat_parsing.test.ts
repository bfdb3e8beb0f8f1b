/**
 * The pieces of the Chat Completions client that parse: the SSE decoder (input split anywhere, CRLF, comments,
 * multi-line data, a multi-byte character cut between chunks), tool-call assembly from fragments (by index, and
 * by id where a server reuses index 0), the sentence gate and the provider's retry wait; and where the streamed text
 * goes: the session's chunker (danda included) and the demo loop's joining of fragments.
 */
import t from 'tap';
import { SseDecoder } from '../../src/providers/openai_chat/sse.js';
import { parseArguments, ToolCallAssembler } from '../../src/providers/openai_chat/tool_calls.js';
import { SentenceGate } from '../../src/providers/openai_chat/sentence_gate.js';
import { retryWaitMs } from '../../src/providers/http/retry.js';
import { SentenceChunker } from '../../src/session/chunker.js';
import { joinFragments } from '../../src/conversations/demo.js';

const STREAM = 'data: {"a":1}\n\n: keep-alive\n\nevent: note\ndata: line one\ndata: line two\n\ndata: [DONE]\n\n';

t.test('sse: whole input and input split at every position give the same events', async (t) => {
  const whole = new SseDecoder().push(STREAM);
  t.same(whole, [{ event: 'message', data: '{"a":1}' }, { event: 'note', data: 'line one\nline two' }, { event: 'message', data: '[DONE]' }]);
  for (let cut = 1; cut < STREAM.length; cut++) {
    const d = new SseDecoder();
    const got = [...d.push(STREAM.slice(0, cut)), ...d.push(STREAM.slice(cut)), ...d.end()];
    t.same(got, whole, `split at ${cut}`);
  }
});

t.test('sse: CRLF and lone CR line endings, also split between the CR and the LF', async (t) => {
  const crlf = 'data: x\r\n\r\ndata: y\r\rdata:z\n\n';
  const want = [{ event: 'message', data: 'x' }, { event: 'message', data: 'y' }, { event: 'message', data: 'z' }];
  t.same(new SseDecoder().push(crlf), want);
  for (let cut = 1; cut < crlf.length; cut++) {
    const d = new SseDecoder();
    t.same([...d.push(crlf.slice(0, cut)), ...d.push(crlf.slice(cut)), ...d.end()], want, `split at ${cut}`);
  }
});

t.test('sse: bytes with a multi-byte character split across chunks', async (t) => {
  const bytes = new TextEncoder().encode('data: {"content":"नमस्ते। धन्यवाद"}\n\n');
  const d = new SseDecoder();
  const got = [];
  for (let i = 0; i < bytes.length; i += 5) got.push(...d.push(bytes.subarray(i, i + 5)));
  t.same(got, [{ event: 'message', data: '{"content":"नमस्ते। धन्यवाद"}' }]);
});

t.test('sse: an unterminated last event is delivered at the end; empty data events are not', async (t) => {
  const d = new SseDecoder();
  t.same(d.push('data: {"b":2}'), []);
  t.same(d.end(), [{ event: 'message', data: '{"b":2}' }]);
  t.same(new SseDecoder().push('event: ping\n\n'), [], 'an event without data is dropped');
});

t.test('tool calls: fragments across chunks, two calls by index', async (t) => {
  const a = new ToolCallAssembler();
  a.push([{ index: 0, id: 'call_abc', type: 'function', function: { name: 'calendar_booking', arguments: '' } }]);
  a.push([{ index: 0, function: { arguments: '{"start":' } }]);
  a.push([{ index: 1, id: 'call_def', type: 'function', function: { name: 'record_fields', arguments: '{"budget"' } }]);
  a.push([{ index: 0, function: { arguments: '"2026-09-01T10:00:00+05:30"}' } }, { index: 1, function: { arguments: ':"80 lakh"}' } }]);
  t.same(a.calls(), [
    { id: 'call_abc', name: 'calendar_booking', rawArguments: '{"start":"2026-09-01T10:00:00+05:30"}' },
    { id: 'call_def', name: 'record_fields', rawArguments: '{"budget":"80 lakh"}' },
  ]);
  t.same(parseArguments(a.calls()[0].rawArguments), { start: '2026-09-01T10:00:00+05:30' });
});

t.test('tool calls: parallel calls that all use index 0 are told apart by id (Ollama)', async (t) => {
  const a = new ToolCallAssembler();
  a.push([{ index: 0, id: 'call_1', function: { name: 'end_call', arguments: '{}' } }]);
  a.push([{ index: 0, id: 'call_2', function: { name: 'record_fields', arguments: '{"intent":"villa"}' } }]);
  t.same(a.calls().map((c) => [c.id, c.name, c.rawArguments]), [['call_1', 'end_call', '{}'], ['call_2', 'record_fields', '{"intent":"villa"}']]);
});

t.test('tool calls: the id repeated on every fragment (vLLM) keeps one call', async (t) => {
  const a = new ToolCallAssembler();
  a.push([{ index: 0, id: 'chatcmpl-tool-1', type: 'function', function: { name: 'end_call' } }]);
  a.push([{ index: 0, id: 'chatcmpl-tool-1', type: 'function', function: { arguments: '{"reason":' } }]);
  a.push([{ index: 0, id: 'chatcmpl-tool-1', type: 'function', function: { arguments: '"completed"}' } }]);
  t.same(a.calls(), [{ id: 'chatcmpl-tool-1', name: 'end_call', rawArguments: '{"reason":"completed"}' }]);
});

t.test('tool calls: missing id and index, a name repeated on every fragment', async (t) => {
  const a = new ToolCallAssembler();
  a.push([{ function: { name: 'record_fields', arguments: '{"customer_' } }]);
  a.push([{ function: { name: 'record_fields', arguments: 'name":"Asha"}' } }]);
  t.same(a.calls(), [{ id: 'call_0', name: 'record_fields', rawArguments: '{"customer_name":"Asha"}' }]);
  t.same(parseArguments(''), {});
  t.equal(parseArguments('{"a":'), undefined);
  t.equal(parseArguments('[1]'), undefined);
});

t.test('sentence gate: releases up to the last boundary, danda included; flush gives the rest', async (t) => {
  const g = new SentenceGate();
  t.equal(g.push('Hello the'), '');
  t.equal(g.push('re. How are'), 'Hello there. ');
  t.equal(g.push(' you? I am'), 'How are you? ');
  t.equal(g.push(' fine'), '');
  t.equal(g.flush(), 'I am fine');
  const h = new SentenceGate();
  t.equal(h.push('नमस्ते। आपका बजट'), 'नमस्ते। ');
  t.equal(h.push(' क्या है?\n'), 'आपका बजट क्या है?\n');
  t.equal(h.push('3.5 crore'), '', 'a decimal point is no boundary');
});

t.test('retry wait: retry-after-ms, then retry-after seconds or date, else back-off', async (t) => {
  t.equal(retryWaitMs(new Headers({ 'retry-after-ms': '150', 'retry-after': '9' }), 0), 150);
  t.equal(retryWaitMs(new Headers({ 'retry-after': '2' }), 0), 2000);
  const now = Date.parse('2026-11-25T10:00:00Z');
  t.equal(retryWaitMs(new Headers({ 'retry-after': 'Wed, 25 Nov 2026 10:00:03 GMT' }), 0, now), 3000);
  const b0 = retryWaitMs(new Headers(), 0);
  t.ok(b0 > 370 && b0 <= 500, `first back-off ${b0}`);
  const b1 = retryWaitMs(new Headers({ 'retry-after': 'soon' }), 1);
  t.ok(b1 > 740 && b1 <= 1000, `second back-off ${b1}`);
});

t.test('the session chunker cuts streamed Hindi at the danda, split anywhere', async (t) => {
  const text = 'नमस्ते, मैं प्रिया बोल रही हूँ। आपका बजट क्या है? धन्यवाद॥ ठीक है';
  for (let cut = 1; cut < text.length; cut += 3) {
    const c = new SentenceChunker();
    const got = [...c.push(text.slice(0, cut)), ...c.push(text.slice(cut))];
    const rest = c.flush();
    t.same([...got, rest], ['नमस्ते, मैं प्रिया बोल रही हूँ।', 'आपका बजट क्या है?', 'धन्यवाद॥', 'ठीक है'], `split at ${cut}`);
  }
});

t.test('demo loop text: streamed fragments join as written, whole sentences get a space', async (t) => {
  t.equal(joinFragments(['Nice to meet', ' you, Asha. What', ' are you', '', ' looking for?']), 'Nice to meet you, Asha. What are you looking for?');
  t.equal(joinFragments(['Hi.', 'How are you?']), 'Hi. How are you?');
  t.equal(joinFragments(['नमस्ते।', 'आपका नाम?']), 'नमस्ते। आपका नाम?');
  t.equal(joinFragments(['Thanks. ', 'Bye.']), 'Thanks. Bye.');
});
