// A lane in a worker thread: runs it, reports its figures as it goes, collects garbage on request.
import { parentPort, workerData } from 'node:worker_threads'
import { runLane } from './lane.mjs'

parentPort.on('message', (message) => {
  if (message === 'gc') {
    globalThis.gc?.()
    parentPort.postMessage({ type: 'gc' })
  }
})
const result = await runLane({ ...workerData, log: (figures) => parentPort.postMessage({ type: 'figures', figures }) })
parentPort.postMessage({ type: 'done', result })
