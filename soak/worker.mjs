// A lane in a worker thread: runs it, reports its figures as it goes, collects garbage on request,
// and waits to dispose its agents until the main thread says every lane is done.
import { parentPort, workerData } from 'node:worker_threads'
import { runLane } from './lane.mjs'

let teardown
const released = new Promise((resolve) => { teardown = resolve })
parentPort.on('message', (message) => {
  if (message === 'gc') {
    globalThis.gc?.()
    parentPort.postMessage({ type: 'gc' })
  }
  if (message === 'teardown') teardown()
})
const finished = () => {
  parentPort.postMessage({ type: 'finished' })
  return released
}
const result = await runLane({ ...workerData, log: (figures) => parentPort.postMessage({ type: 'figures', figures }), finished })
parentPort.postMessage({ type: 'done', result })
