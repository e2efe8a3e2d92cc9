// npm run soak: the real deepseek-harness 0.1.0-rc.8 loop under load and faults, with this plugin
// beside the reference, and memory against a baseline without the guard. Two processes run the same
// seeded script at once: `guard` (the reference and this plugin in their contexts) and `baseline`
// (the same contexts without this plugin). Prints the seed, progress, figures and one `ok: soak` or
// `not ok: soak` line per check (a `skip: soak` line for a check the run did not measure enough to
// judge); exits 1 on any failure. docs/TESTING.md describes it.
// SOAK_ROUNDS rounds in every lane (a fixed amount of work; `npm test` sets it) or, without it, SOAK_S
// seconds (300); SOAK_SEED (random), SOAK_AGENTS in all (200, shared out among the lanes),
// SOAK_WORKERS (4), SOAK_PLANT=drop|leak plants a fault to show the soak catching it;
// SOAK_SAMPLES=file keeps the samples, SOAK_JUDGE=file judges kept samples again.
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const rounds = process.env.SOAK_ROUNDS ? Number(process.env.SOAK_ROUNDS) : null
const seconds = Number(process.env.SOAK_S ?? 300)
const seed = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31))
const agents = Number(process.env.SOAK_AGENTS ?? 200)
const workers = Number(process.env.SOAK_WORKERS ?? 4)
const plant = process.env.SOAK_PLANT ?? ''
const LIMIT_MB = 16
const LIMIT_MB_PER_MIN = 1
const RATE_MIN_MINUTES = 1
// Memory is sampled by work done (run.mjs: after a lane's round, and when every lane is done) and
// compared past a warm-up, also counted in work: the harness, the addon and V8 settle first. Both
// processes' RSS climbs for the first four or five rounds (every agent re-created at least once: each
// lives at most three turns) and then flattens, so the warm-up is WARM_ROUNDS rounds in every lane.
// Past it, the growth needs MIN_SAMPLES samples (the median of the first three against that of the
// last three); a run with fewer says so on a skip line rather than judge what it did not measure.
const WARM_ROUNDS = 5
const MIN_SAMPLES = 6
const MB = 2 ** 20

for (const [name, value] of Object.entries({ SOAK_S: seconds, SOAK_SEED: seed, SOAK_AGENTS: agents, SOAK_WORKERS: workers, ...(rounds === null ? {} : { SOAK_ROUNDS: rounds }) })) {
  if (!Number.isInteger(value) || value < (name === 'SOAK_WORKERS' ? 0 : 1)) throw new Error(`${name} must be a positive integer, got ${process.env[name]}`)
}
if (rounds !== null && process.env.SOAK_S) throw new Error('set SOAK_ROUNDS (rounds in every lane) or SOAK_S (seconds), not both')
if (!['', 'drop', 'leak'].includes(plant)) throw new Error(`SOAK_PLANT must be drop or leak, got ${plant}`)
const bound = rounds === null ? `${seconds} s` : `${rounds} rounds in every lane`
console.log(`soak: seed ${seed} (replay with SOAK_SEED=${seed}), ${bound}, ${agents} agents (${Math.ceil(agents / (workers + 1))} in each of ${workers + 1} lanes: the main thread and ${workers} workers), ${process.version}${plant ? `, planted fault: ${plant}` : ''}`)

function run(flavour) {
  return new Promise((resolve) => {
    // The young generation at one fixed size in every thread: V8 otherwise grows each thread's new
    // space when it sees fit, and the RSS steps that follow fall at different points of the same work
    // in the two processes, as noise in the comparison.
    const child = spawn(process.execPath, ['--expose-gc', '--min-semi-space-size=16', '--max-semi-space-size=16', fileURLToPath(new URL('./run.mjs', import.meta.url))], {
      env: { ...process.env, SOAK_FLAVOUR: flavour, SOAK_SEED: String(seed), SOAK_S: String(seconds), SOAK_ROUNDS: rounds === null ? '' : String(rounds), SOAK_AGENTS: String(agents), SOAK_WORKERS: String(workers), SOAK_PLANT: plant },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    // A run that does not end is a failure too: its turns hang. (Each turn has its own limit, whose
    // breach is a deviation; this is the last resort, generous enough for a loaded machine.)
    const kill = setTimeout(() => child.kill('SIGKILL'), ((rounds === null ? seconds : rounds * 60) + 600) * 1000)
    let result = null
    let buffered = ''
    child.stdout.on('data', (chunk) => {
      buffered += chunk
      let at
      while ((at = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, at)
        buffered = buffered.slice(at + 1)
        if (line.startsWith('SOAK-RESULT ')) result = JSON.parse(line.slice('SOAK-RESULT '.length))
        else console.log(line)
      }
    })
    child.on('exit', (code, signal) => {
      clearTimeout(kill)
      resolve({ flavour, code, signal, result })
    })
  })
}

const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]

/** RSS growth past the warm-up (median of the last three samples less that of the first three) and its least-squares slope in time. */
function growthOf(past) {
  const growth = (median(past.slice(-3).map((s) => s.rss)) - median(past.slice(0, 3).map((s) => s.rss))) / MB
  const mt = past.reduce((a, s) => a + s.t, 0) / past.length
  const mr = past.reduce((a, s) => a + s.rss, 0) / past.length
  const slope = past.reduce((a, s) => a + (s.t - mt) * (s.rss - mr), 0) / past.reduce((a, s) => a + (s.t - mt) ** 2, 0)
  return { growth, perMin: (slope * 60) / MB, from: past[0].rss / MB, to: past.at(-1).rss / MB, minutes: (past.at(-1).t - past[0].t) / 60, calls: [past[0].calls, past.at(-1).calls], samples: past.length }
}

/**
 * The memory checks: the guard's share of RSS growth, and of its rate, against the limits. `byTime`:
 * the run was bounded by seconds; a rate per minute is judged only there (a run bounded by rounds is
 * judged by its work alone, however fast the machine).
 */
function judgeMemory(guardSamples, baselineSamples, byTime) {
  const past = [guardSamples, baselineSamples].map((samples) => samples.filter((s) => s.rounds >= WARM_ROUNDS))
  const counts = `${past[0].length} of ${guardSamples.length} samples of the guard run and ${past[1].length} of ${baselineSamples.length} of the baseline`
  if (past.some((p) => p.length < MIN_SAMPLES)) {
    console.log(`skip: soak: memory not judged: ${counts} past the warm-up, fewer than ${MIN_SAMPLES} (a longer run: more SOAK_ROUNDS or SOAK_S)`)
    return
  }
  const [ours, theirs] = past.map(growthOf)
  const share = ours.growth - theirs.growth
  const rate = ours.perMin - theirs.perMin
  const mb = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(1)} MB`
  const over = (g) => `${g.from.toFixed(1)} -> ${g.to.toFixed(1)} MB (${mb(g.growth)}, ${g.perMin.toFixed(2)} MB/min) over calls ${g.calls[0]}-${g.calls[1]} and ${g.minutes.toFixed(1)} min`
  console.log(`soak: RSS past the warm-up (${WARM_ROUNDS} rounds in every lane; after forced GCs; ${counts}): guard ${over(ours)}; baseline ${over(theirs)}`)
  check(share <= LIMIT_MB, `the guard's share of RSS growth is ${mb(share)} (at most ${LIMIT_MB} MB)`)
  // A rate over less than a minute of samples is mostly the noise of two young processes' heaps
  // (several MB/min either way): it is printed, and judged only over a longer window of a run
  // bounded by time.
  const judged = byTime && ours.minutes >= RATE_MIN_MINUTES
  if (judged) check(rate <= LIMIT_MB_PER_MIN, `the guard's share of RSS growth rate is ${rate.toFixed(2)} MB/min (at most ${LIMIT_MB_PER_MIN} MB/min)`)
  else console.log(`skip: soak: the guard's share of RSS growth rate is ${rate.toFixed(2)} MB/min, not judged: ${byTime ? `${ours.minutes.toFixed(1)} min of samples past the warm-up, fewer than ${RATE_MIN_MINUTES} (a longer SOAK_S)` : 'a run bounded by rounds is judged by its work alone (SOAK_S judges the rate)'}`)
}

let failed = 0
const check = (pass, text) => {
  console.log(`${pass ? 'ok' : 'not ok'}: soak: ${text}`)
  if (!pass) failed++
}

// SOAK_JUDGE=file judges the memory samples a run kept (SOAK_SAMPLES) again, without running anything.
if (process.env.SOAK_JUDGE) {
  const kept = JSON.parse(readFileSync(process.env.SOAK_JUDGE, 'utf8'))
  judgeMemory(kept.guard ?? [], kept.baseline ?? [], !kept.rounds)
  console.log(`soak: memory of the kept samples ${failed === 0 ? 'passed' : `FAILED (${failed} checks)`}; seed ${kept.seed}`)
  process.exit(failed === 0 ? 0 : 1)
}

const [guard, baseline] = await Promise.all([run('guard'), run('baseline')])
// SOAK_SAMPLES=file keeps every memory sample of both runs, for a closer look.
if (process.env.SOAK_SAMPLES) writeFileSync(process.env.SOAK_SAMPLES, JSON.stringify({ seed, rounds, seconds, guard: guard.result?.samples, baseline: baseline.result?.samples }))

for (const r of [guard, baseline]) {
  check(r.code === 0 && r.result && !r.result.failure, `the ${r.flavour} run finished without a crash${r.code === 0 ? '' : ` (exit ${r.code ?? r.signal})`}${r.result?.failure ? `: ${r.result.failure}` : ''}`)
}
const sum = (lanes, key) => lanes.reduce((a, f) => a + f[key], 0)
if (guard.result) {
  const { lanes, deviations } = guard.result
  const faults = {}
  for (const f of lanes) for (const [k, v] of Object.entries(f.faults)) faults[k] = (faults[k] ?? 0) + v
  console.log(`soak: guard run: ${sum(lanes, 'calls')} calls (each in every context of its lane), ${sum(lanes, 'reminders')} reminders from this plugin, ${sum(lanes, 'turns')} turns in ${sum(lanes, 'rounds')} rounds; ${sum(lanes, 'recreated')} agents re-created, ${sum(lanes, 'subagents')} subagents, ${sum(lanes, 'reloadsAtRest')} reloads at rest and ${sum(lanes, 'reloadsMidTurn')} mid-turn, ${sum(lanes, 'clears')} clear() calls; faults ${JSON.stringify(faults)}`)
  for (const d of deviations.filter(Boolean).slice(0, 10)) console.log(`soak: deviation ${JSON.stringify(d).slice(0, 2000)}`)
  check(deviations.length === 0, `${deviations.length} deviations from the reference and the model in ${sum(lanes, 'calls')} calls`)
}
if (baseline.result) {
  const { lanes, deviations } = baseline.result
  console.log(`soak: baseline run: ${sum(lanes, 'calls')} calls, ${sum(lanes, 'turns')} turns in ${sum(lanes, 'rounds')} rounds`)
  for (const d of deviations.filter(Boolean).slice(0, 5)) console.log(`soak: baseline deviation ${JSON.stringify(d).slice(0, 2000)}`)
  check(deviations.length === 0, `${deviations.length} deviations in the baseline run (calls and results against the reference's context)`)
}
judgeMemory(guard.result?.samples ?? [], baseline.result?.samples ?? [], rounds === null)
console.log(`soak: ${failed === 0 ? 'passed' : `FAILED (${failed} checks)`}; seed ${seed}`)
process.exitCode = failed === 0 ? 0 : 1
