// A model's script for the scripted servers: a list of steps, each one model response making one
// or more tool calls (several calls in one step are parallel calls), then a final text answer.
// A step is written as a call `{ name, args }` or an array of them; `args` is the arguments as
// the model sends them, whatever the protocol calls that field.

/** The script as an array of steps, each an array of `{ name, args }`. */
export function steps(script) {
  return script.map((step, i) => {
    const calls = Array.isArray(step) ? step : [step]
    if (calls.length === 0) throw new Error(`step ${i} of the script has no call`)
    for (const call of calls) {
      if (typeof call?.name !== 'string' || call.args === null || typeof call.args !== 'object') {
        throw new Error(`step ${i} of the script: a call is { name, args }, got ${JSON.stringify(call)}`)
      }
    }
    return calls
  })
}

/** `step` times the same call: the usual shape of a loop. */
export function repeat(call, times) {
  return Array.from({ length: times }, () => call)
}

// Tool-call ids name the server and the step, so a server reads from the conversation it is sent
// which step comes next (a retried request gets the same answer), and a conversation that holds
// another server's calls (a resumed session) starts this one's script from the top.
let servers = 0

export function newTag() {
  servers += 1
  return `s${process.pid}x${servers}`
}

export function callId(prefix, tag, step, index) {
  return `${prefix}_${tag}_${step}_${index}`
}

/** The step and index an id names, or undefined when it is not one of this tag's. */
export function parseCallId(id, tag) {
  const match = /^[a-z]+_([a-z0-9]+)_(\d+)_(\d+)$/.exec(id ?? '')
  if (!match || match[1] !== tag) return undefined
  return { step: Number(match[2]), index: Number(match[3]) }
}

/** Every string in `value`, in order: what a check for a text in the model's input reads. */
export function strings(value, into = []) {
  if (typeof value === 'string') into.push(value)
  else if (Array.isArray(value)) for (const item of value) strings(item, into)
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) strings(item, into)
  return into
}
