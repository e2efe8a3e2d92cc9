// A worker thread for robustness.spec.mjs: loads the addon on its own, keeps its own guard, and
// reports what it counted. `agents` agents each make `calls` identical calls; `spin` keeps
// observing until the parent terminates the worker.
import { parentPort, workerData } from 'node:worker_threads'
import { RepeatToolGuard, canonicalize } from '../../index.js'

const { agents, calls, spin } = workerData
const guard = new RepeatToolGuard({ thresholds: [3] })
if (spin) {
  parentPort.postMessage('spinning')
  for (let i = 0; ; i++) guard.observe(`agent-${i % 1000}`, 'grep', { i: i % 3, deep: [[[{ b: 1, a: 2 }]]] })
}
let reminders = 0
for (let a = 0; a < agents; a++) {
  for (let c = 0; c < calls; c++) if (guard.observe(`agent-${a}`, 'grep', { q: 'same', worker: agents })) reminders++
}
// Deeper than this thread's JSON.stringify reaches, so the iterative fallback runs here too.
let deep = 0
for (let i = 0; i < 50_000; i++) deep = { b: 1, a: deep }
const canonical = canonicalize(deep)
parentPort.postMessage({
  reminders,
  agentCount: guard.agentCount,
  deepOk: canonical === `${'{"a":'.repeat(50_000)}0${',"b":1}'.repeat(50_000)}`,
})
