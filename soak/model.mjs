// A small model of the guard's behaviour, written from the documented rules (docs/FEATURES.md, "Opt-in
// features"), independent of the guard's code: which calls count, how runs grow (without the keys
// ignoreArguments names), near-identical runs (similar), the windows of noProgress and failures
// (results without their volatile parts, failures as docs/FEATURES.md tells them, once per arguments), a response's
// repeats left out (perResponse), and which reminder each call brings. The soak feeds it the calls each context's waterfall sees and
// compares its answer with the reminder the plugin actually folded into the decision.
import { GENTLE, detailed } from '../__test__/oracle.mjs'

const SIMILAR = (tool, n) => `Near-identical tool calls detected:\n- tool: ${tool}\n- consecutive_calls: ${n}\nThe arguments change only slightly from call to call and the calls are not making progress. Do not call this tool again with a small variation of the same arguments. Inspect the latest result and choose a different action, or finish the task if enough evidence has been gathered.`

/** An ignoreArguments key as its names: split at each `.`, where `\.` is a dot and `\\` a backslash of a name. */
function names(path) {
  const out = ['']
  for (let i = 0; i < path.length; i++) {
    if (path[i] === '\\') out[out.length - 1] += path[++i]
    else if (path[i] === '.') out.push('')
    else out[out.length - 1] += path[i]
  }
  return out
}

/** `value` without the members the key paths name (objects only, never inside arrays); which paths cut something. */
function without(value, paths) {
  const removed = paths.map(() => false)
  const cut = (v, live, depth) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || live.length === 0) return v
    const copy = {}
    for (const key of Object.keys(v)) {
      const here = live.filter((p) => paths[p][depth] === key)
      const ends = here.filter((p) => paths[p].length === depth + 1)
      for (const p of ends) removed[p] = true
      if (ends.length > 0) continue
      Object.defineProperty(copy, key, { value: cut(v[key], here, depth + 1), enumerable: true, writable: true, configurable: true })
    }
    return copy
  }
  return { value: cut(value, paths.map((_, i) => i), 0), removed }
}

/** The Dice coefficient of two texts' bigram multisets (pairs of UTF-16 code units). */
function dice(a, b) {
  const counts = new Map()
  for (let i = 0; i + 1 < a.length; i++) counts.set(a.slice(i, i + 2), (counts.get(a.slice(i, i + 2)) ?? 0) + 1)
  let shared = 0
  for (let i = 0; i + 1 < b.length; i++) {
    const n = counts.get(b.slice(i, i + 2)) ?? 0
    if (n > 0) {
      shared++
      counts.set(b.slice(i, i + 2), n - 1)
    }
  }
  const total = Math.max(a.length - 1, 0) + Math.max(b.length - 1, 0)
  return total === 0 ? 0 : (2 * shared) / total
}

const NO_PROGRESS = (tool, n, window) => `Tool calls without progress detected:\n- tool: ${tool}\n- same_call_same_result: ${n} of the last ${window} calls\nThis call, with identical arguments, keeps returning the same result, with other calls in between, so it tells you nothing new. Do not make it again until something it depends on has changed. Read the result you already have, change your approach (a different command, file, or fix), or finish the task if enough evidence has been gathered.`
const FAILURES = (tool, n, window) => `Repeated tool failures detected:\n- tool: ${tool}\n- same_error: ${n} of the last ${window} calls\nThis tool keeps failing with the same error, whatever the arguments, so retrying it with small changes will fail again. Read the error message: it says what is wrong (a missing file or directory, a wrong path or parameter, a command that is not available). Fix that cause first, or use a different tool or approach.`
const FAILURE_WORDS = ['error', 'exception', 'traceback', 'not found', 'no such file', 'failed', 'failure', 'invalid', 'cannot', "can't", 'unable', 'denied', 'usage:']

/** A result's canonical text with each run of hexadecimal digits and hyphens holding a decimal digit as `#`. */
const normalized = (text) => text.replace(/[0-9a-fA-F-]+/g, (run) => (/[0-9]/.test(run) ? '#' : run))

/** Whether a result's canonical text is a failure: flagged, or an error word starting a word in its first 512 bytes. */
function isFailure(text) {
  if (text.includes('"isError":true')) return true
  const head = Buffer.from(text).subarray(0, 512).toString('latin1').toLowerCase()
  return FAILURE_WORDS.some((word) => {
    for (let at = head.indexOf(word); at >= 0; at = head.indexOf(word, at + 1)) if (at === 0 || !/[a-z0-9]/.test(head[at - 1])) return true
    return false
  })
}

/** Takes `call` (null: one that never counts) into `window` (at most `size`); its count and whether it is due. */
function pushWindow(window, call, { minCalls, window: size }, args = null) {
  while (window.length >= size) window.shift()
  if (call === null) {
    window.push({ call, due: false })
    return { count: 0, due: false }
  }
  const equal = window.filter((held) => held.call === call)
  // With `args` (failures), calls with the same arguments count once.
  const seen = new Set([args])
  const count = 1 + equal.filter((held) => held.args === null || (!seen.has(held.args) && seen.add(held.args))).length
  const due = count >= minCalls && !equal.some((held) => held.due)
  window.push({ call, args, due })
  return { count, due }
}

const CYCLE = (tools, n) => `Repeated cycle of tool calls detected:\n- tools: ${tools.join(', ')}\n- consecutive_repetitions: ${n}\nThe same sequence of calls, with identical arguments, keeps coming back and is not making progress. Do not repeat this sequence again. Inspect the latest results and choose a different action, different arguments, or finish the task if enough evidence has been gathered.`

/** `*` matches any run of characters; everything else is literal. */
function matches(pattern, name) {
  const parts = pattern.split('*')
  if (parts.length === 1) return pattern === name
  if (!name.startsWith(parts[0]) || !name.endsWith(parts.at(-1))) return false
  let at = parts[0].length
  const end = name.length - parts.at(-1).length
  for (const part of parts.slice(1, -1)) {
    const found = name.indexOf(part, at)
    if (found < 0 || found + part.length > end) return false
    at = found + part.length
  }
  return at <= end
}

/**
 * Deep key-sort, then JSON.stringify. `keepProto`: an own "__proto__" key stays a key (this plugin);
 * otherwise assigning it sets the copy's prototype and the key is lost (the reference).
 */
function canonicalize(value, keepProto) {
  const sort = (v) => {
    if (Array.isArray(v)) return v.map(sort)
    if (v === null || typeof v !== 'object') return v
    const sorted = {}
    for (const key of Object.keys(v).sort()) {
      if (keepProto) Object.defineProperty(sorted, key, { value: sort(v[key]), enumerable: true, writable: true, configurable: true })
      else sorted[key] = sort(v[key])
    }
    return sorted
  }
  return JSON.stringify(sort(value))
}

export class GuardModel {
  /**
   * `config`: the plugin's config as given (absent keys take the documented defaults).
   * `keepProto`: false to model the reference's canonical form.
   */
  constructor(config = {}, { keepProto = true } = {}) {
    this.keepProto = keepProto
    this.thresholds = [...(config.thresholds ?? [3, 5, 8])].sort((a, b) => a - b)
    this.include = config.include ?? []
    this.exclude = config.exclude ?? []
    this.cap = config.argumentsPreviewChars ?? 500
    this.cycles = config.cycles ?? null
    this.sameResultOnly = config.sameResultOnly === true
    this.overrides = config.overrides ?? []
    this.repeatEvery = config.repeatEvery ?? null
    this.ignore = (config.ignoreArguments ?? []).map(({ tools, keys }) => ({ tools, keys }))
    this.similar = config.similar ? { minCalls: config.similar.minCalls ?? 5, similarity: config.similar.similarity ?? 0.85 } : null
    const window = (option, minCalls, size) => option && { minCalls: option.minCalls ?? minCalls, window: option.window ?? Math.max(size, option.minCalls ?? minCalls) }
    this.noProgress = window(config.noProgress, 6, 16)
    this.failures = window(config.failures, 3, 8)
    this.perResponse = config.perResponse === true
    this.clear()
  }

  /** Forgets every agent, as unloading the plugin does; the counts restart with the new guard. */
  clear() {
    this.chains = new WeakMap()
    this.observed = 0
    this.reminders = 0
  }

  tracked(tool) {
    if (this.include.length > 0 && !this.include.some((p) => matches(p, tool))) return false
    return !this.exclude.some((p) => matches(p, tool))
  }

  /** The agent's next calls belong to a new model response (`perResponse`). */
  nextResponse(agent) {
    const chain = this.chains.get(agent)
    if (chain) chain.inResponse = false
  }

  /** A user prompt: the agent's chain (and cycle history) starts over. */
  reset(agent) {
    this.chains.delete(agent)
  }

  thresholdsOf(tool) {
    return this.overrides.find((o) => o.tools.some((p) => matches(p, tool)))?.thresholds.toSorted((a, b) => a - b) ?? this.thresholds
  }

  /** The tier due at run length `run`, or null. */
  tier(tool, run) {
    const t = this.thresholdsOf(tool)
    if (run === t[0]) return 'gentle'
    if (t.includes(run)) return 'detailed'
    const last = t.at(-1)
    if (this.repeatEvery && run > last && (run - last) % this.repeatEvery === 0) return 'detailed'
    return null
  }

  /**
   * One call as `tools/post-execute` sees it; returns the reminder due as `{ text, summary, tier }`,
   * or null. `agent` is the live agent object (chains are per agent object, as the reference keys them).
   */
  observe(agent, tool, args, result) {
    if (!agent || !this.tracked(tool)) return null
    // ignoreArguments: every matching entry's keys, once each, in config order.
    const keys = [...new Set(this.ignore.filter((e) => e.tools.some((p) => matches(p, tool))).flatMap((e) => e.keys))]
    const cut = keys.length > 0 ? without(args, keys.map(names)) : { value: args, removed: [] }
    const ignored = keys.filter((_, i) => cut.removed[i])
    const canonical = canonicalize(cut.value, this.keepProto)
    const key = JSON.stringify([tool, canonical])
    // perResponse: the agent's last call again in the same model response is left out, uncounted.
    const last = this.chains.get(agent)
    if (this.perResponse && last?.run > 0 && last.key === key && last.inResponse) return null
    this.observed++
    const outcome = this.sameResultOnly ? JSON.stringify([result?.content, result?.isError === true]) : null
    let chain = this.chains.get(agent)
    if (!chain) this.chains.set(agent, chain = { key: null, outcome: null, run: 0, history: [], reported: null, near: null, progress: [], failed: [], inResponse: false })
    chain.inResponse = true
    const sameCall = chain.run > 0 && chain.key === key
    const resultsEqual = chain.outcome === outcome
    const near = this.similar ? this.nearRun(chain, tool, canonical, sameCall, resultsEqual) : null
    chain.run = sameCall && resultsEqual ? chain.run + 1 : 1
    chain.key = key
    chain.outcome = outcome
    const cycle = this.cycles ? this.cycle(chain, key, tool) : null
    // noProgress and failures: the result as sameResultOnly compares it, without its volatile parts.
    const text = this.noProgress || this.failures ? canonicalize({ content: result?.content, isError: Boolean(result?.isError) }, this.keepProto) : null
    const same = this.noProgress ? pushWindow(chain.progress, JSON.stringify([key, normalized(text)]), this.noProgress) : null
    const failed = this.failures ? pushWindow(chain.failed, isFailure(text) ? JSON.stringify([tool, normalized(text)]) : null, this.failures, key) : null
    const tier = this.tier(tool, chain.run)
    let reminder = null
    if (tier) {
      const text = tier === 'gentle' ? GENTLE : detailed(tool, chain.run, canonical, this.cap)
      reminder = { tier, summary: `${tool} × ${chain.run}`, text: ignored.length > 0 && tier !== 'gentle' ? text.replace('\nThe repeated calls', `\n- ignored_keys: ${ignored.join(', ')}\nThe repeated calls`) : text }
    } else if (cycle) {
      reminder = { tier: 'cycle', summary: `(${cycle.tools.join(', ')}) × ${cycle.repeats}`, text: CYCLE(cycle.tools, cycle.repeats) }
    } else if (near) {
      reminder = { tier: 'similar', summary: `${tool} ≈ ${near}`, text: SIMILAR(tool, near) }
    } else if (same?.due) {
      reminder = { tier: 'noProgress', summary: `${tool} ⟳ ${same.count}`, text: NO_PROGRESS(tool, same.count, this.noProgress.window) }
    } else if (failed?.due) {
      reminder = { tier: 'failure', summary: `${tool} ✗ ${failed.count}`, text: FAILURES(tool, failed.count, this.failures.window) }
    }
    if (reminder) this.reminders++
    return reminder
  }

  /**
   * similar, by its definition: calls of one tool in a row, each not the same call as the last but at
   * least `similarity` alike over the first 512 code units of the canonical arguments; the run's
   * length when it reaches `minCalls` (once per run), else null.
   */
  nearRun(chain, tool, canonical, sameCall, resultsEqual) {
    const sample = canonical.slice(0, 512)
    const last = chain.near
    if (sameCall) {
      chain.near = { tool, sample, run: 1 }
      return null
    }
    const close = last !== null && resultsEqual && last.tool === tool && dice(last.sample, sample) >= this.similar.similarity
    const run = close ? last.run + 1 : 1
    chain.near = { tool, sample, run }
    return close && run === this.similar.minCalls ? run : null
  }

  /**
   * Cycles, by their definition: the latest P × repeats calls are `repeats` copies of one block of
   * P calls, not all one call; the smallest such P; once per run of the cycle (until a call breaks
   * the repetition of the reported period). The history kept is what the largest cycle needs.
   */
  cycle(chain, key, tool) {
    const { maxPeriod, repeats } = this.cycles
    const h = chain.history
    h.push({ key, tool })
    if (h.length > maxPeriod * (repeats + 8)) h.shift()
    const n = h.length
    if (chain.reported !== null) {
      const p = chain.reported
      if (n > p && h[n - 1].key === h[n - 1 - p].key) return null
      chain.reported = null
    }
    for (let p = 2; p <= maxPeriod; p++) {
      if (n < p * repeats) continue
      let repeating = true
      for (let i = n - p * repeats; i < n - p && repeating; i++) repeating = h[i].key === h[i + p].key
      const block = h.slice(n - p)
      if (!repeating || block.every((c) => c.key === block[0].key)) continue
      chain.reported = p
      // The repetitions seen back to back: the streak of calls equal to the one P back, over P, plus one.
      let streak = 0
      for (let i = n - 1; i - p >= 0 && h[i].key === h[i - p].key; i--) streak++
      return { tools: block.map((c) => c.tool), repeats: Math.floor(streak / p) + 1 }
    }
    return null
  }
}
