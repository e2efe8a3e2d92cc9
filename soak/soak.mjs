// npm run soak: the real deepseek-harness 0.1.0-rc.8 loop under load and faults, with this plugin
// beside the reference, and memory against a baseline without the guard. Two processes run the same
// seeded script at once: `guard` (the reference and this plugin in their contexts) and `baseline`
// (the same contexts without this plugin). Prints the seed, progress, figures and one `ok: soak` or
// `not ok: soak` line per check (a `skip: soak` line for a check the run is too short for); exits 1
// on any failure. docs/TESTING.md describes it.
// SOAK_S seconds (300), SOAK_SEED (random), SOAK_AGENTS in all (200, shared out among the lanes), SOAK_WORKERS (4),
// SOAK_PLANT=drop|leak plants a fault to show the soak catching it; SOAK_SAMPLES=file keeps the samples,
// SOAK_JUDGE=file judges kept samples again.
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const seconds = Number(process.env.SOAK_S ?? 300)
const seed = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31))
const agents = Number(process.env.SOAK_AGENTS ?? 200)
const workers = Number(process.env.SOAK_WORKERS ?? 4)
const plant = process.env.SOAK_PLANT ?? ''
const LIMIT_MB = 16
const LIMIT_MB_PER_MIN = 1
const RATE_MIN_MINUTES = 1
// Memory is compared past a warm-up: the harness, the addon and V8 settle first. Both processes'
// RSS climbs for the first four or five rounds (every agent re-created at least once: each lives at
// most three turns) and then flattens, so the warm-up is 40% of the run (at least 15 s, at most
// 10 minutes) and at least WARM_ROUNDS rounds in every lane.
const warmUp = Math.min(600, Math.max(15, seconds * 0.4))
const WARM_ROUNDS = 5
const MB = 2 ** 20

for (const [name, value] of Object.entries({ SOAK_S: seconds, SOAK_SEED: seed, SOAK_AGENTS: agents, SOAK_WORKERS: workers })) {
  if (!Number.isInteger(value) || value < (name === 'SOAK_WORKERS' ? 0 : 1)) throw new Error(`${name} must be a positive integer, got ${process.env[name]}`)
}
if (!['', 'drop', 'leak'].includes(plant)) throw new Error(`SOAK_PLANT must be drop or leak, got ${plant}`)
console.log(`soak: seed ${seed} (replay with SOAK_SEED=${seed}), ${seconds} s, ${agents} agents (${Math.ceil(agents / (workers + 1))} in each of ${workers + 1} lanes: the main thread and ${workers} workers), ${process.version}${plant ? `, planted fault: ${plant}` : ''}`)

function run(flavour) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', fileURLToPath(new URL('./run.mjs', import.meta.url))], {
      env: { ...process.env, SOAK_FLAVOUR: flavour, SOAK_SEED: String(seed), SOAK_S: String(seconds), SOAK_AGENTS: String(agents), SOAK_WORKERS: String(workers), SOAK_PLANT: plant },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    // A run that does not end is a failure too: its turns hang.
    const kill = setTimeout(() => child.kill('SIGKILL'), (seconds + 420) * 1000)
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

/** RSS growth past the warm-up (median of the last three samples less that of the first three) and its least-squares slope. */
function growthOf(samples) {
  // Up to the deadline: after it the lanes finish their last round, dispose everything and end.
  const past = samples.filter((s) => s.t >= warmUp && s.rounds >= WARM_ROUNDS && s.t <= seconds)
  if (past.length < 6) return null
  const growth = (median(past.slice(-3).map((s) => s.rss)) - median(past.slice(0, 3).map((s) => s.rss))) / MB
  const mt = past.reduce((a, s) => a + s.t, 0) / past.length
  const mr = past.reduce((a, s) => a + s.rss, 0) / past.length
  const slope = past.reduce((a, s) => a + (s.t - mt) * (s.rss - mr), 0) / past.reduce((a, s) => a + (s.t - mt) ** 2, 0)
  return { growth, perMin: (slope * 60) / MB, from: past[0].rss / MB, to: past.at(-1).rss / MB, minutes: (past.at(-1).t - past[0].t) / 60, samples: past.length }
}

/** The memory checks: the guard's share of RSS growth, and of its rate, against the limits. */
function judgeMemory(guardSamples, baselineSamples) {
  const ours = growthOf(guardSamples)
  const theirs = growthOf(baselineSamples)
  if (ours && theirs) {
    const share = ours.growth - theirs.growth
    const rate = ours.perMin - theirs.perMin
    const mb = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(1)} MB`
    console.log(`soak: RSS past the warm-up (${warmUp} s and ${WARM_ROUNDS} rounds in every lane) (after forced GCs): guard ${ours.from.toFixed(1)} -> ${ours.to.toFixed(1)} MB (${mb(ours.growth)}, ${ours.perMin.toFixed(2)} MB/min, ${ours.samples} samples over ${ours.minutes.toFixed(1)} min); baseline ${theirs.from.toFixed(1)} -> ${theirs.to.toFixed(1)} MB (${mb(theirs.growth)}, ${theirs.perMin.toFixed(2)} MB/min)`)
    check(share <= LIMIT_MB, `the guard's share of RSS growth is ${mb(share)} (at most ${LIMIT_MB} MB)`)
    // A rate over less than a minute of samples is mostly the noise of two young processes' heaps
    // (several MB/min either way): it is printed, and judged only over a longer window.
    if (ours.minutes >= RATE_MIN_MINUTES) check(rate <= LIMIT_MB_PER_MIN, `the guard's share of RSS growth rate is ${rate.toFixed(2)} MB/min (at most ${LIMIT_MB_PER_MIN} MB/min)`)
    else console.log(`skip: soak: the guard's share of RSS growth rate is ${rate.toFixed(2)} MB/min, not judged: ${ours.minutes.toFixed(1)} min of samples past the warm-up, fewer than ${RATE_MIN_MINUTES} (a longer SOAK_S)`)
  } else {
    check(false, 'too few memory samples past the warm-up to compare (a longer SOAK_S?)')
  }
}

let failed = 0
const check = (pass, text) => {
  console.log(`${pass ? 'ok' : 'not ok'}: soak: ${text}`)
  if (!pass) failed++
}

// SOAK_JUDGE=file judges the memory samples a run kept (SOAK_SAMPLES, with that run's SOAK_S) again,
// without running anything.
if (process.env.SOAK_JUDGE) {
  const kept = JSON.parse(readFileSync(process.env.SOAK_JUDGE, 'utf8'))
  judgeMemory(kept.guard ?? [], kept.baseline ?? [])
  console.log(`soak: memory of the kept samples ${failed === 0 ? 'passed' : `FAILED (${failed} checks)`}; seed ${kept.seed}`)
  process.exit(failed === 0 ? 0 : 1)
}

const [guard, baseline] = await Promise.all([run('guard'), run('baseline')])
// SOAK_SAMPLES=file keeps every memory sample of both runs, for a closer look.
if (process.env.SOAK_SAMPLES) writeFileSync(process.env.SOAK_SAMPLES, JSON.stringify({ seed, guard: guard.result?.samples, baseline: baseline.result?.samples }))

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
judgeMemory(guard.result?.samples ?? [], baseline.result?.samples ?? [])
console.log(`soak: ${failed === 0 ? 'passed' : `FAILED (${failed} checks)`}; seed ${seed}`)
process.exitCode = failed === 0 ? 0 : 1
