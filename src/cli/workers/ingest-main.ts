import { Worker } from 'node:worker_threads';
import { describeTraceDestination } from '../../telemetry/index.js';
import { createInputRouter } from './input-router.js';
import { workerEnv } from './worker-env.js';
import { mergeStats, sumDelivered } from './worker-results.js';
import type { CommonOptions, Input, Io } from '../command.js';
import { MAX_REPORTED_REJECTS, reportIngestEnd, sayUnknownOnce } from '../output/ingest-report.js';
import type { PipelineResult } from '../output/ingest-report.js';
import { startIngestShare } from './ingest-share.js';
import type { FromWorker, LineBatch, Rejected, ToWorker, WorkerSetup } from './worker-protocol.js';
import { workerResourceLimits } from '../young-generation.js';

const BATCH_LINES = 512;
/** Batches a worker may have in hand before the reader waits for it. */
const MAX_BATCHES_IN_FLIGHT = 8;

/**
 * `ingest --workers N`: the same mapping in N shares, each with its own sink and export pipeline
 * (ingest-share.ts), on worker threads. A line goes to the share of its run (behest's `run_id`,
 * hashed as partitions are); runtimes without run ids keep a whole input on one share (their runs
 * are named within it). Regular files are read by every share, each taking its own lines (found
 * where they lie in their decoded chunk, the others never cut); stdin and followed files are read
 * here and their lines handed over. Where every input is a regular file, the first share runs on
 * the main thread.
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
  const workers = Array.from({ length: workerCount }, () => ({
    link: undefined as ShareLink | undefined,
    inFlight: 0,
    wake: undefined as (() => void) | undefined,
    batch: emptyBatch(),
    finished: undefined as Extract<FromWorker, { type: 'finished' }> | undefined,
    done: undefined as (() => void) | undefined,
    failed: undefined as Error | undefined,
  }));
  const heard = (state: (typeof workers)[number]) => (message: FromWorker) => {
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
  };
  const failed = (state: (typeof workers)[number]) => (error: unknown) => {
    state.failed = error instanceof Error ? error : new Error(String(error));
    state.wake?.();
    state.done?.();
  };
  // Where every input is a regular file, the main thread has no lines to hand over: it runs the
  // first share itself, so that N shares cost N isolates (a share's start, and its compiling the
  // mapping again, is what most of a share costs on a file of 100 000 events). The worker threads
  // are started first, to start while the main thread reads.
  const mainShare = inputs.every((input) => input.path !== undefined);
  for (let k = workerCount - 1; k >= 0; k -= 1) {
    const setup: WorkerSetup = {
      options,
      env: workerEnv(io.env, k + 1),
      inputs: inputs.map((i) => i.name),
      self: k,
      workers: workerCount,
      files,
    };
    const state = workers[k]!;
    state.link = (k === 0 && mainShare ? sameThreadShare : threadShare)(
      setup,
      heard(state),
      failed(state),
    );
  }
  const send = async (w: (typeof workers)[number]) => {
    if (w.batch.text.length === 0) return;
    while (w.inFlight >= MAX_BATCHES_IN_FLIGHT && w.failed === undefined)
      await new Promise<void>((resolve) => (w.wake = resolve));
    if (w.failed !== undefined) throw w.failed;
    w.inFlight += 1;
    w.link!.post(w.batch);
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
          w.link!.post({ type: 'end' });
        }),
    ),
  );
  await Promise.all(workers.map((w) => w.link!.stop()));

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

/** How the main thread reaches a share: a worker thread's port, or the share on its own thread. */
interface ShareLink {
  post(message: ToWorker): void;
  stop(): Promise<unknown>;
}

/** A share on a worker thread of its own. */
function threadShare(
  setup: WorkerSetup,
  heard: (message: FromWorker) => void,
  failed: (error: unknown) => void,
): ShareLink {
  // The worker's own process.env too: its exporters read their settings from it.
  const limits = workerResourceLimits();
  const worker = new Worker(new URL('./ingest-worker.js', import.meta.url), {
    workerData: setup,
    env: { ...setup.env },
    ...(limits === undefined ? {} : { resourceLimits: limits }),
  });
  worker.on('message', heard);
  worker.on('error', failed);
  return { post: (message) => worker.postMessage(message), stop: () => worker.terminate() };
}

/** The main thread's own share: what it is sent is taken in turn, what it says is heard at once. */
function sameThreadShare(
  setup: WorkerSetup,
  heard: (message: FromWorker) => void,
  failed: (error: unknown) => void,
): ShareLink {
  const share = startIngestShare(setup, heard, failed);
  return { post: (message) => share.take(message), stop: () => Promise.resolve() };
}

function emptyBatch(): LineBatch {
  return { type: 'lines', input: [], lineNumber: [], text: [], dialect: [], bad: [] };
}
