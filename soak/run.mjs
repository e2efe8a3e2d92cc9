// One soak process: a lane in the main thread and SOAK_WORKERS more in worker threads, all running
// the same seeded script (each lane its own part of it), with RSS sampled after forced garbage
// collections in every thread. SOAK_FLAVOUR=guard or baseline (no guard plugin). Each lane runs
// SOAK_ROUNDS rounds or, without it, rounds for SOAK_S seconds. Prints progress, then one line
// `SOAK-RESULT {json}`. Started by soak.mjs with --expose-gc.
import { Worker } from 'node:worker_threads'
import { runLane } from './lane.mjs'

const flavour = process.env.SOAK_FLAVOUR ?? 'guard'
const seed = Number(process.env.SOAK_SEED)
const rounds = process.env.SOAK_ROUNDS ? Number(process.env.SOAK_ROUNDS) : undefined
const seconds = Number(process.env.SOAK_S ?? 300)
const agents = Number(process.env.SOAK_AGENTS ?? 200)
const workerCount = Number(process.env.SOAK_WORKERS ?? 4)
const plant = process.env.SOAK_PLANT || undefined
if (typeof globalThis.gc !== 'function') throw new Error('soak/run.mjs needs --expose-gc')

const lanes = new Map()
const workers = []
const started = Date.now()
// Without SOAK_ROUNDS every lane stops starting rounds at the same moment, boot included.
// SOAK_AGENTS is the process's total, shared out among the lanes.
const options = { seed, agents: Math.ceil(agents / (workerCount + 1)), rounds, deadline: started + seconds * 1000, flavour, plant }
// A lane whose rounds are done waits, before it disposes anything, until every lane is done and the
// last sample is taken: every sample is of the lanes at work or at rest, never of one winding down.
const finished = new Set()
let release
const released = new Promise((resolve) => { release = resolve })
const main = runLane({ ...options, lane: 0, log: (figures) => progressed(0, figures), finished: () => laneFinished(0) })
const done = [main]
for (let lane = 1; lane <= workerCount; lane++) {
  const worker = new Worker(new URL('./worker.mjs', import.meta.url), { workerData: { ...options, lane } })
  workers.push(worker)
  done.push(new Promise((resolve, reject) => {
    worker.on('message', (message) => {
      if (message.type === 'figures') progressed(lane, message.figures)
      if (message.type === 'finished') laneFinished(lane)
      if (message.type === 'done') resolve(message.result)
    })
    worker.on('error', reject)
    worker.on('exit', (code) => reject(new Error(`worker ${lane} exited with code ${code} before it finished`)))
  }))
}

const total = (key) => [...lanes.values()].reduce((sum, f) => sum + f[key], 0)

/** Collects garbage in every thread still running, then reads the process's RSS. */
async function sample() {
  await Promise.all(workers.filter((w) => w.threadId >= 0).map((w) => new Promise((resolve) => {
    const finish = () => {
      w.off('message', heard)
      w.off('exit', finish)
      resolve()
    }
    const heard = (m) => {
      if (m.type === 'gc') finish()
    }
    w.on('message', heard)
    w.on('exit', finish)
    w.postMessage('gc')
  })))
  globalThis.gc()
  globalThis.gc()
  // `rounds`: the fewest any lane has finished (the warm-up is counted in them).
  const rounds = lanes.size === workerCount + 1 ? Math.min(...[...lanes.values()].map((f) => f.rounds)) : 0
  const { rss, heapUsed, external } = process.memoryUsage()
  // heapUsed and external are the main thread's only; RSS is the whole process's.
  return { t: (Date.now() - started) / 1000, rss, heapUsed, external, calls: total('calls'), rounds }
}

// Memory is sampled by work done: after a round of any lane (unless a sample is being taken), and
// once more when every lane has done its rounds.
const samples = []
let sampling = null
function progressed(lane, figures) {
  lanes.set(lane, figures)
  sampling ??= sample().then((s) => {
    samples.push(s)
    sampling = null
  })
}

async function laneFinished(lane) {
  finished.add(lane)
  if (finished.size === workerCount + 1) {
    while (sampling) await sampling
    samples.push(await sample())
    release()
  }
  await released
}
released.then(() => {
  for (const w of workers) w.postMessage('teardown')
})

let reported = 0
const progress = setInterval(() => {
  const t = Math.round((Date.now() - started) / 1000)
  if (t < reported + (rounds ? 10 : Math.max(10, seconds / 12))) return
  reported = t
  const last = samples.at(-1)
  console.log(`[${flavour}] ${t} s: ${total('calls')} calls, ${total('reminders')} reminders, ${total('rounds')} rounds, rss ${last ? (last.rss / 2 ** 20).toFixed(1) : '?'} MB`)
}, 1000)

let results
let failure = null
try {
  results = await Promise.all(done)
} catch (error) {
  failure = String(error?.stack ?? error)
  results = []
  release()
}
clearInterval(progress)
for (const w of workers) w.removeAllListeners('exit')
await Promise.all(workers.map((w) => w.terminate()))
console.log(`SOAK-RESULT ${JSON.stringify({
  flavour,
  seconds: (Date.now() - started) / 1000,
  failure,
  lanes: results.map((r) => r.figures),
  deviations: results.flatMap((r) => r.deviations),
  samples,
})}`)
