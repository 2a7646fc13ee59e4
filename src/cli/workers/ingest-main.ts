import { Worker } from 'node:worker_threads';
import { describeTraceDestination } from '../../telemetry/index.js';
import { createInputRouter } from './input-router.js';
import { workerEnv } from './worker-env.js';
import { mergeStats, sumDelivered } from './worker-results.js';
import type { CommonOptions, Input, Io } from '../command.js';
import { MAX_REPORTED_REJECTS, reportIngestEnd, sayUnknownOnce } from '../output/ingest-report.js';
import type { PipelineResult } from '../output/ingest-report.js';
import type { FromWorker, LineBatch, Rejected, WorkerSetup } from './worker-protocol.js';
import { workerResourceLimits } from '../young-generation.js';

const BATCH_LINES = 512;
/** Batches a worker may have in hand before the reader waits for it. */
const MAX_BATCHES_IN_FLIGHT = 8;

/**
 * `ingest --workers N`: the same mapping on N worker threads, each with its own sink and export
 * pipeline. A line goes to the worker of its run (behest's `run_id`, hashed as partitions are);
 * runtimes without run ids keep a whole input on one worker (their runs are named within it).
 * Regular files are read by every worker, each taking its own lines (found where they lie in
 * their decoded chunk, the others never cut); stdin and followed files are read here and their
 * lines handed over.
 */
export async function runParallelPipeline(
  io: Io,
  options: CommonOptions,
  command: string,
  inputs: readonly Input[],
  workerCount: number,
): Promise<PipelineResult> {
  const started = performance.now();
  const files = inputs.flatMap((input, index) =>
    input.path === undefined ? [] : [{ input: index, path: input.path }],
  );
  const workers = Array.from({ length: workerCount }, (_, k) => {
    const setup: WorkerSetup = {
      options,
      env: workerEnv(io.env, k + 1),
      inputs: inputs.map((i) => i.name),
      self: k,
      workers: workerCount,
      files,
    };
    // The worker's own process.env too: resource detection reads it.
    const limits = workerResourceLimits();
    const worker = new Worker(new URL('./ingest-worker.js', import.meta.url), {
      workerData: setup,
      env: { ...setup.env },
      ...(limits === undefined ? {} : { resourceLimits: limits }),
    });
    const state = {
      worker,
      inFlight: 0,
      wake: undefined as (() => void) | undefined,
      batch: emptyBatch(),
      finished: undefined as Extract<FromWorker, { type: 'finished' }> | undefined,
      done: undefined as (() => void) | undefined,
      failed: undefined as Error | undefined,
    };
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'done-batch' || message.type === 'report') {
        if (message.type === 'done-batch') state.inFlight -= 1;
        report(message.rejected);
        if (!options.quiet)
          for (const u of message.unknown)
            sayUnknownOnce(io, unknownTypes, {
              where: `${inputs[u.input]?.name ?? '?'}:${u.lineNumber}`,
              key: u.key,
              message: u.message,
            });
        state.wake?.();
      } else {
        state.finished = message;
        state.done?.();
      }
    });
    worker.on('error', (error: Error) => {
      state.failed = error;
      state.wake?.();
      state.done?.();
    });
    return state;
  });
  let reported = 0;
  let rejectedLines = 0;
  const unknownTypes = new Set<string>();
  const report = (rejected: readonly Rejected[]) => {
    rejectedLines += rejected.length;
    for (const r of rejected) {
      if (reported++ >= MAX_REPORTED_REJECTS || options.quiet) continue;
      io.stderr.write(`${inputs[r.input]?.name ?? '?'}:${r.lineNumber}: rejected: ${r.message}\n`);
    }
  };
  const send = async (w: (typeof workers)[number]) => {
    if (w.batch.text.length === 0) return;
    while (w.inFlight >= MAX_BATCHES_IN_FLIGHT && w.failed === undefined)
      await new Promise<void>((resolve) => (w.wake = resolve));
    if (w.failed !== undefined) throw w.failed;
    w.inFlight += 1;
    w.worker.postMessage(w.batch);
    w.batch = emptyBatch();
  };

  let lines = 0;
  const consume = async (input: Input, index: number) => {
    if (input.path !== undefined) return;
    const router = createInputRouter(options.dialect, input.name, workerCount);
    for await (const batch of input.batches)
      for (const line of batch) {
        lines += 1;
        const w = workers[router.route(line)]!;
        const batch = w.batch;
        batch.dialect.push(router.dialect);
        if (!line.ok)
          batch.bad.push({ index: batch.text.length, reason: line.reason, message: line.message });
        batch.input.push(index);
        batch.lineNumber.push(line.lineNumber);
        batch.text.push(line.ok ? line.text : null);
        if (batch.text.length >= BATCH_LINES) await send(w);
      }
  };
  await Promise.all(inputs.map(consume));
  for (const w of workers) await send(w);
  const results = await Promise.all(
    workers.map(
      (w) =>
        new Promise<Extract<FromWorker, { type: 'finished' }>>((resolve, reject) => {
          // A worker that already failed (a file it read itself) says so at once.
          if (w.failed !== undefined) {
            reject(w.failed);
            return;
          }
          w.done = () =>
            w.finished !== undefined
              ? resolve(w.finished)
              : reject(w.failed ?? new Error('an ingest worker ended without its results'));
          w.worker.postMessage({ type: 'end' });
        }),
    ),
  );
  await Promise.all(workers.map((w) => w.worker.terminate()));

  for (const r of results) lines += r.lines;
  const stats = mergeStats(results.map((r) => r.stats));
  const delivered = sumDelivered(results.map((r) => r.delivered));
  return reportIngestEnd(io, options, {
    command,
    lines,
    seconds: (performance.now() - started) / 1000,
    stats,
    output: { mode: 'otlp', destination: describeTraceDestination(io.env) },
    delivered,
    rejected: Math.max(rejectedLines, stats.events.rejected),
    reported,
  });
}

function emptyBatch(): LineBatch {
  return { type: 'lines', input: [], lineNumber: [], text: [], dialect: [], bad: [] };
}
