// One `serve --workers` thread: a sink, tracker and export pipeline of its own for the lines the
// main thread routes to it (a behest run's always to the same worker, another stream's all to one).
import { parentPort, workerData } from 'node:worker_threads';
import type { InputDialect } from '../../events/dialect-name.js';
import type { IntakeLine, LineOutcome } from '../../sources/event-intake.js';
import { startLocalBackend } from '../commands/serve-backend.js';
import type {
  FromServeWorker,
  RequestBatch,
  ServeWorkerSetup,
  ToServeWorker,
} from './worker-protocol.js';

/** How often a worker tells the main thread its export status between answers. */
const STATUS_EVERY_MILLIS = 250;

const setup = workerData as ServeWorkerSetup;
const port = parentPort!;
const backend = startLocalBackend(setup.env, setup.options, []);
const post = (message: FromServeWorker) => port.postMessage(message);
const timer = setInterval(
  () => post({ type: 'status', status: backend.status() }),
  STATUS_EVERY_MILLIS,
);
timer.unref();

/** Only what a request's answer reports (the rest stays in this thread). */
const answerOf = ({ outcome, reason, message, path }: LineOutcome): LineOutcome => ({
  outcome,
  ...(outcome === 'accepted' || reason === undefined ? {} : { reason }),
  ...(outcome === 'accepted' || message === undefined ? {} : { message }),
  ...(outcome === 'accepted' || path === undefined ? {} : { path }),
});

/** The batch's lines, each run of lines read in one dialect handed over together. */
async function answer(batch: RequestBatch): Promise<LineOutcome[]> {
  const bad = new Map(batch.bad.map((b) => [b.index, b]));
  const outcomes: LineOutcome[] = [];
  for (let start = 0; start < batch.text.length;) {
    const dialect: InputDialect = batch.dialect[start]!;
    const lines: IntakeLine[] = [];
    let end = start;
    for (; end < batch.text.length && batch.dialect[end] === dialect; end += 1) {
      const text = batch.text[end];
      const refused = bad.get(end);
      lines.push(
        typeof text === 'string'
          ? { text }
          : {
              reason: refused?.reason ?? 'invalid_line',
              message: refused?.message ?? 'unreadable line',
            },
      );
    }
    const results = await backend.intake.handle(lines, {
      scope: batch.scope,
      named: batch.named,
      dialect,
    });
    for (const result of results) outcomes.push(answerOf(result));
    start = end;
  }
  return outcomes;
}

async function handle(message: ToServeWorker): Promise<void> {
  if (message.type === 'limit') {
    backend.intake.limitHit(message.limit, message.message);
  } else if (message.type === 'runs') {
    post({ type: 'runs', id: message.id, view: await backend.intake.openRuns(message.limit) });
  } else if (message.type === 'end') {
    clearInterval(timer);
    const { stats, delivered } = await backend.close();
    post({ type: 'finished', stats, delivered });
  } else {
    let outcomes: LineOutcome[];
    try {
      outcomes = await answer(message);
    } catch {
      // The sink never throws; should anything else, the request is still answered.
      outcomes = message.text.map(() => ({
        outcome: 'rejected',
        reason: 'internal_error',
        message: 'internal error while mapping; see diagnostics',
      }));
    }
    post({ type: 'answer', id: message.id, outcomes, status: backend.status() });
  }
}

let queue: Promise<void> = Promise.resolve();
port.on('message', (message: ToServeWorker) => {
  // One message after another, in the order the main thread sent them.
  queue = queue.then(() => handle(message));
});
