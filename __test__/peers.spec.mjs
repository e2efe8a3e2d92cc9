// The other detectors' rules that scripts/eval.mjs sets beside the guard (scripts/peers.mjs), each
// on a tiny trajectory made here, read as the eval reads one (the chat format's reader): each
// fires at the call its documentation says, and not where it says it does not.
import test from 'ava'
import { chatInputs } from '../cli/formats/chat.js'
import { PEERS, firstFiring } from '../scripts/peers.mjs'

const peer = (prefix) => PEERS.find((p) => p.label.startsWith(prefix))

let ids = 0
/** One model response of `calls` (`[name, args, result?, isError?]`), as chat messages. */
function response(...calls) {
  const id = ++ids
  return [
    { role: 'assistant', tool_calls: calls.map(([name, args], i) => ({ id: `${id}.${i}`, type: 'function', function: { name, arguments: JSON.stringify(args) } })) },
    ...calls.map(([, , result = 'ok'], i) => ({ role: 'tool', tool_call_id: `${id}.${i}`, content: result })),
  ]
}
const user = { role: 'user', content: 'go' }
/** The call (from 1) at which `prefix`'s rule first fires on `messages`, or null. */
const fires = (prefix, messages) => firstFiring(peer(prefix), [...chatInputs(messages)])
const times = (n, make) => Array.from({ length: n }, (_, i) => make(i)).flat()

const A = ['grep', { pattern: 'x', path: '.' }]
const A2 = ['grep', { path: '.', pattern: 'x' }] // A with its keys in another order
const B = ['read', { path: 'a' }]

test('seven peers, each named with where its rule is described', (t) => {
  t.deepEqual(PEERS.map((p) => p.label.split(' (')[0]), ['gemini-cli', 'OpenHands', 'Cline', 'Roo Code', 'opencode', 'OpenClaw', 'AI SDK'])
})

test('gemini-cli: the same call 5 times in a row, keys as given; a user prompt starts over', (t) => {
  t.is(fires('gemini', [user, ...times(5, () => response(A))]), 5)
  t.is(fires('gemini', [user, ...times(4, () => response(A))]), null)
  t.is(fires('gemini', [user, ...times(2, () => response(A)), ...times(3, () => response(A2))]), null, 'another key order is another call')
  t.is(fires('gemini', [user, ...times(3, () => response(A)), user, ...times(3, () => response(A))]), null)
})

test('OpenHands: 4 identical action-observation pairs, 3 identical actions with errors, 6 steps alternating two pairs', (t) => {
  t.is(fires('OpenHands', [user, ...times(4, () => response(A))]), 4)
  t.is(fires('OpenHands', [user, ...times(2, () => response(A)), ...times(2, () => response(A2))]), 4, 'key order ignored, as dict equality ignores it')
  t.is(fires('OpenHands', [user, ...times(6, (i) => response([...A, `result ${i}`]))]), null, 'changing observations are progress')
  t.is(fires('OpenHands', [user, ...times(6, (i) => response(i % 2 ? B : A))]), 6)
  // Errors: the Anthropic format carries is_error; in the chat format a result is never an error.
  const inputs = [{ kind: 'prompt', seq: 0 }, ...times(3, (i) => [{ kind: 'call', seq: i + 1, tool: 'bash', args: { command: 'make' }, result: { content: [{ type: 'text', text: `error ${i}` }], isError: true }, response: i }])]
  t.is(firstFiring(peer('OpenHands'), inputs), 3)
  t.is(firstFiring(peer('OpenHands'), inputs.map((input) => (input.kind === 'call' ? { ...input, result: { ...input.result, isError: false } } : input))), null)
})

test('Cline: 3 in a row with keys sorted and task_progress left out; a user message does not reset it', (t) => {
  t.is(fires('Cline', [user, ...response(A), ...response(A2), ...response(A)]), 3)
  t.is(fires('Cline', [user, ...times(3, (i) => response(['write', { path: 'a', task_progress: `${i}/3` }]))]), 3)
  t.is(fires('Cline', [user, ...times(2, () => response(A)), user, ...response(A)]), 3)
  t.is(fires('Cline', [user, ...times(2, () => response(A)), ...response(B), ...response(A)]), null)
})

test('Roo Code: the 4th identical call, then it starts over; browser scrolls are exempt', (t) => {
  t.is(fires('Roo', [user, ...times(4, () => response(A))]), 4)
  t.is(fires('Roo', [user, ...times(3, () => response(A))]), null)
  const scroll = ['browser_action', { action: 'scroll_down' }]
  t.is(fires('Roo', [user, ...times(6, () => response(scroll))]), null)
  const detector = peer('Roo').create()
  const calls = [...chatInputs([user, ...times(8, () => response(A))])].filter((input) => input.kind === 'call')
  t.deepEqual(calls.map((input) => detector.call(input)), [false, false, false, true, false, false, false, true])
})

test('opencode: 3 identical calls in one model response, not across responses', (t) => {
  t.is(fires('opencode', [user, ...response(A, A, A)]), 3)
  t.is(fires('opencode', [user, ...response(B), ...response(A, A, A)]), 4)
  t.is(fires('opencode', [user, ...times(5, () => response(A))]), null)
  t.is(fires('opencode', [user, ...response(A, A2, A)]), null, 'keys as given')
})

test('OpenClaw: a warning when 10 of the last 30 calls were this one, or at the 10th call of an alternation', (t) => {
  t.is(fires('OpenClaw', [user, ...times(11, () => response(A))]), 11, 'ten before it')
  t.is(fires('OpenClaw', [user, ...times(10, (i) => [...response(A), ...response(['ls', { i }])]), ...response(A)]), 21, 'not in a row')
  t.is(fires('OpenClaw', [user, ...times(10, () => response(A)), ...times(30, (i) => response(['ls', { i }])), ...response(A)]), null, 'out of the window of 30')
  t.is(fires('OpenClaw', [user, ...times(12, (i) => response(i % 2 ? B : A))]), 10)
  t.is(fires('OpenClaw', [user, ...times(10, () => response(A)), user, ...response(A)]), null, 'the history is the run\'s')
})

test('AI SDK: 3 model responses in a row making the same calls, in any order, at the last call of the third', (t) => {
  const C = ['grep', { pattern: 'y', path: '.' }]
  t.is(fires('AI SDK', [user, ...times(3, () => response(A))]), 3)
  t.is(fires('AI SDK', [user, ...response(A), ...response(A2), ...response(A)]), 3, 'object keys sorted')
  t.is(fires('AI SDK', [user, ...times(3, () => response(A, B))]), 6, 'parallel calls: once all of the third response\'s have run')
  t.is(fires('AI SDK', [user, ...response(A, B), ...response(B, A), ...response(A, B)]), 6, 'in any order')
  t.is(fires('AI SDK', [user, ...response(A, A), ...response(A, A), ...response(A)]), null, 'duplicates kept')
  t.is(fires('AI SDK', [user, ...times(2, () => response(A)), ...response(A, C)]), null, 'one more call is another step')
  t.is(fires('AI SDK', [user, ...times(2, () => response(A)), { role: 'assistant', content: 'thinking' }, ...response(A)]), null, 'a response without calls breaks the streak')
  t.is(fires('AI SDK', [user, ...times(2, () => response(A)), user, ...response(A)]), null, 'a run is one prompt\'s')
  t.is(fires('AI SDK', [user, ...response(B), ...times(3, (i) => response([...A, `result ${i}`]))]), 4, 'results are not compared (compareResults is off)')
})
