// One ingest worker thread: a share of `ingest --workers N` (ingest-share.ts), told what to do by
// the main thread and answering it over the thread's port.
import { parentPort, workerData } from 'node:worker_threads';
import { startIngestShare } from './ingest-share.js';
import type { ToWorker, WorkerSetup } from './worker-protocol.js';

const port = parentPort!;
const share = startIngestShare(
  workerData as WorkerSetup,
  (message) => port.postMessage(message),
  // Thrown out of the thread: its `error` event fails the command, as a failure of one thread.
  (error) =>
    process.nextTick(() => {
      throw error;
    }),
);
port.on('message', (message: ToWorker) => share.take(message));
