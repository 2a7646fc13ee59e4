import { Worker } from 'node:worker_threads';
import { createLineDecoder } from '../../dialects/detect.js';
import { routesByRun } from '../../dialects/registry.js';
import type { LineDecoder } from '../../dialects/detect.js';
import type { InputDialect } from '../../events/dialect-name.js';
import { MAX_NAMED_STREAMS } from '../../sources/event-intake.js';
import type { LineOutcome } from '../../sources/event-intake.js';
import type { CommonOptions } from '../command.js';
import { lineOwner } from './line-owner.js';
import type { ServeBackend } from '../commands/serve-backend.js';
import { workerEnv } from './worker-env.js';
import type {
  ExportStatus,
  FromServeWorker,
  RequestBatch,
  ServeWorkerSetup,
  ToServeWorker,
} from './worker-protocol.js';
import { mergeStats, sumDelivered } from './worker-results.js';
import { mergeOpenRuns } from '../../sources/open-runs-answer.js';
import type { OpenRunsView } from '../../sources/open-runs-answer.js';

/**
 * Each worker thread's young generation: request bodies decoded and applied are short-lived, and
 * a smaller nursery is collected sooner. 100 concurrent 10 MiB bodies on 2 workers peaked at
 * 365–408 MiB with it against 445–466 MiB with V8's default, at the same events/s.
 */
const SERVE_WORKER_YOUNG_GENERATION_MIB = 8;

type Finished = Extract<FromServeWorker, { type: 'finished' }>;

interface Pending {
  readonly outcomes: LineOutcome[];
  /** Which of the request's lines went to which worker, in order. */
  readonly indexes: Map<number, number[]>;
  remaining: number;
  readonly resolve: (outcomes: readonly LineOutcome[]) => void;
  readonly reject: (error: Error) => void;
}

/**
 * `serve --workers N`: the HTTP server on the main thread, the mapping and export on N worker
 * threads, each with its own sink, tracker and export pipeline. A behest line goes to the worker
 * of its run (hashed as partitions are), so a run sent over many requests stays on one worker; a
 * stream of a runtime without run ids (a request, or an `X-Agent-Stream`) stays whole on one.
 * `onFailure` hears of a worker that died: the server cannot keep what it routes there.
 */
export function startWorkerBackend(
  env: Readonly<Record<string, string | undefined>>,
  options: CommonOptions,
  count: number,
  onFailure: (error: Error) => void,
): ServeBackend {
  const pending = new Map<number, Pending>();
  // `GET /runs` asks every worker; the answer waits for all of them.
  const views = new Map<
    number,
    { readonly views: OpenRunsView[]; readonly limit: number; resolve(view: OpenRunsView): void }
  >();
  let viewRequests = 0;
  const viewAnswered = (id: number, view: OpenRunsView) => {
    const asked = views.get(id);
    if (asked === undefined) return;
    asked.views.push(view);
    if (asked.views.length < count) return;
    views.delete(id);
    asked.resolve(mergeOpenRuns(asked.views, asked.limit));
  };
  const statuses: ExportStatus[] = [];
  let requests = 0;
  let failed: Error | undefined;
  let ending = false;
  const fail = (error: Error) => {
    if (failed !== undefined || ending) return;
    failed = error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    // What the living workers said is still worth showing.
    for (const asked of views.values()) asked.resolve(mergeOpenRuns(asked.views, asked.limit));
    views.clear();
    onFailure(error);
  };
  // A worker's results, or undefined when it died first.
  const finished: Promise<Finished | undefined>[] = [];
  const workers = Array.from({ length: count }, (_, k) => {
    const setup: ServeWorkerSetup = { options, env: workerEnv(env, k + 1) };
    // The worker's own process.env too: its exporters read their settings from it.
    const worker = new Worker(new URL('./serve-worker.js', import.meta.url), {
      workerData: setup,
      env: { ...setup.env },
      resourceLimits: { maxYoungGenerationSizeMb: SERVE_WORKER_YOUNG_GENERATION_MIB },
    });
    statuses.push({ inOutage: false, backlog: 0 });
    let done: (result: Finished | undefined) => void = () => undefined;
    finished.push(new Promise((resolve) => (done = resolve)));
    worker.on('message', (message: FromServeWorker) => {
      if (message.type === 'finished') return done(message);
      if (message.type === 'runs') return viewAnswered(message.id, message.view);
      statuses[k] = message.status;
      if (message.type !== 'answer') return;
      const p = pending.get(message.id);
      if (p === undefined) return;
      const indexes = p.indexes.get(k) ?? [];
      message.outcomes.forEach((outcome, i) => (p.outcomes[indexes[i]!] = outcome));
      p.remaining -= 1;
      if (p.remaining === 0) {
        pending.delete(message.id);
        p.resolve(p.outcomes);
      }
    });
    worker.on('error', (error: Error) =>
      fail(new Error(`serve worker ${k + 1}: ${error.message}`)),
    );
    worker.on('exit', (code) => {
      done(undefined);
      if (!ending) fail(new Error(`serve worker ${k + 1} exited (code ${code})`));
    });
    return worker;
  });
  const post = (k: number, message: ToServeWorker) => workers[k]!.postMessage(message);

  // An `auto` stream's dialect, as the first line that tells decides it (named streams keep it).
  const detected = new Map<string, InputDialect>();
  const detectorFor = (scope: string): LineDecoder =>
    createLineDecoder('auto', { scope, arrival: () => [0, 0] });

  return {
    intake: {
      handle(lines, stream) {
        if (failed !== undefined) return Promise.reject(failed);
        const id = (requests += 1);
        const { scope, named } = stream;
        // Streams of runtimes without run ids all go to one worker: their derived run ids are
        // told apart only where every such stream is read.
        const home = 0;
        let dialect: InputDialect =
          stream.dialect === 'auto' ? (detected.get(scope) ?? 'auto') : stream.dialect;
        let detector: LineDecoder | undefined;
        const batches = new Map<number, RequestBatch>();
        const indexes = new Map<number, number[]>();
        lines.forEach((line, i) => {
          const text = 'text' in line ? line.text : null;
          if (dialect === 'auto' && text !== null) {
            detector ??= detectorFor(scope);
            detector.decodeLine(text);
            const locked = detector.dialect;
            if (locked !== undefined && locked !== 'native') {
              dialect = locked;
              if (named) {
                detected.set(scope, locked);
                if (detected.size > MAX_NAMED_STREAMS)
                  detected.delete(detected.keys().next().value!);
              }
            }
          }
          const byRun = dialect !== 'auto' && routesByRun(dialect);
          const owner = byRun && text !== null ? lineOwner(text, dialect, scope, count) : home;
          let batch = batches.get(owner);
          if (batch === undefined) {
            batch = { type: 'request', id, scope, named, text: [], dialect: [], bad: [] };
            batches.set(owner, batch);
            indexes.set(owner, []);
          }
          if (!('text' in line))
            batch.bad.push({
              index: batch.text.length,
              reason: line.reason,
              message: line.message,
            });
          batch.text.push(text);
          // The stream a worker reads the line in: a dialect routed by run as such, else as asked.
          batch.dialect.push(byRun ? dialect : stream.dialect);
          indexes.get(owner)!.push(i);
        });
        if (batches.size === 0) return [];
        return new Promise((resolve, reject) => {
          pending.set(id, {
            outcomes: new Array<LineOutcome>(lines.length),
            indexes,
            remaining: batches.size,
            resolve,
            reject,
          });
          for (const [owner, batch] of batches) post(owner, batch);
        });
      },
      limitHit: (limit, message) => post(0, { type: 'limit', limit, message }),
      openRuns(limit) {
        if (failed !== undefined) return Promise.reject(failed);
        const id = (viewRequests += 1);
        return new Promise((resolve) => {
          views.set(id, { views: [], limit, resolve });
          for (let k = 0; k < count; k += 1) post(k, { type: 'runs', id, limit });
        });
      },
    },
    status: () => ({
      inOutage: statuses.some((s) => s.inOutage),
      backlog: Math.max(...statuses.map((s) => s.backlog)),
    }),
    async close() {
      ending = true;
      for (let k = 0; k < count; k += 1) post(k, { type: 'end' });
      const results = (await Promise.all(finished)).filter((r) => r !== undefined);
      await Promise.all(workers.map((w) => w.terminate()));
      return {
        stats: mergeStats(results.map((r) => r.stats)),
        delivered: sumDelivered(results.map((r) => r.delivered)),
      };
    },
  };
}
