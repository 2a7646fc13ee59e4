// One ingest worker thread: its own sink, tracker and export pipeline for the runs the main thread
// routes to it (a run's lines always to the same worker), and for its own lines of the files it
// reads itself.
import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { EventStream } from '../../sink/agent-otel-sink.js';
import type { InputDialect } from '../../events/dialect-name.js';
import { DEFAULT_MAX_LINE_BYTES, eachLine } from '../../sources/ndjson-lines.js';
import { startExportingSink } from '../command-sink.js';
import { PacedFlush } from '../paced-flush.js';
import { createInputRouter } from './input-router.js';
import type { FromWorker, Rejected, ToWorker, Unknown, WorkerSetup } from './worker-protocol.js';

const FLUSH_EVERY_LINES = 4096;
/** Own lines of a file read between two reports of its rejected and unknown lines. */
const REPORT_EVERY_LINES = 512;

const setup = workerData as WorkerSetup;
const port = parentPort!;
const env = setup.env;
const { sink, telemetry, delivery } = startExportingSink(env, setup.options, {
  countWindowsInEvents: true,
});
// One stream per input and dialect: an input's lines read before its dialect was known and those
// read as behest after are apart (behest runs carry their ids; nothing else is split).
const streams = new Map<string, EventStream>();
const streamOf = (input: number, dialect: InputDialect) => {
  const key = `${input}\0${dialect}`;
  let stream = streams.get(key);
  if (stream === undefined) {
    stream = sink.openStream(setup.inputs[input] ?? `input-${input}`, dialect);
    streams.set(key, stream);
  }
  return stream;
};

interface Notes {
  rejected: Rejected[];
  unknown: Unknown[];
}

let lines = 0;
/**
 * Maps one line (null: one the reader turned down, for `bad`'s reason) and notes what to say of
 * it; true when the spans made since the last flush are due to be exported.
 */
function take(
  input: number,
  lineNumber: number,
  text: string | null,
  dialect: InputDialect,
  bad: { readonly reason: string; readonly message: string } | undefined,
  notes: Notes,
): boolean {
  const result =
    text === null
      ? sink.reject(bad?.reason ?? 'invalid_line', bad?.message ?? 'unreadable line')
      : streamOf(input, dialect).handleJson(text);
  if (result.outcome === 'rejected')
    notes.rejected.push({ input, lineNumber, message: result.message ?? result.reason ?? '' });
  if (result.outcome === 'ignored' && result.reason === 'unknown_variant')
    notes.unknown.push({
      input,
      lineNumber,
      message: result.message ?? 'unknown event type',
      key: `${result.dialect}:${result.sourceType ?? ''}`,
    });
  lines += 1;
  return lines % FLUSH_EVERY_LINES === 0;
}

const flushes = new PacedFlush(() => telemetry.flushTraces());

let ownLines = 0;
/** Reads a whole file, taking the lines that route to this worker; the others stay bytes. */
async function readOwn(file: WorkerSetup['files'][number]): Promise<void> {
  const router = createInputRouter(
    setup.options.dialect,
    setup.inputs[file.input] ?? file.path,
    setup.workers,
  );
  let notes: Notes = { rejected: [], unknown: [] };
  let since = 0;
  const say = () => {
    if (notes.rejected.length > 0 || notes.unknown.length > 0) {
      const report: FromWorker = { type: 'report', ...notes };
      port.postMessage(report);
      notes = { rejected: [], unknown: [] };
    }
    since = 0;
  };
  await eachLine(
    createReadStream(file.path),
    DEFAULT_MAX_LINE_BYTES,
    router.keepFor(setup.self),
    (line) => {
      if (router.route(line) !== setup.self) return undefined;
      ownLines += 1;
      const due = take(
        file.input,
        line.lineNumber,
        line.ok ? line.text : null,
        router.dialect,
        line.ok ? undefined : line,
        notes,
      );
      if ((since += 1) >= REPORT_EVERY_LINES) say();
      return due ? flushes.due() : undefined;
    },
  );
  say();
}

const ownReads = Promise.all(setup.files.map(readOwn));
// A file that fails to read fails the worker (and the command), as it fails one thread.
ownReads.catch((error: unknown) =>
  process.nextTick(() => {
    throw error;
  }),
);

let queue: Promise<void> = Promise.resolve();
port.on('message', (message: ToWorker) => {
  // Batches are handled one after another, exports awaited between them.
  queue = queue.then(() => handle(message));
});

async function handle(message: ToWorker): Promise<void> {
  if (message.type === 'end') {
    await ownReads;
    await flushes.settled();
    sink.endOpenRuns('end_of_input');
    await sink.shutdown();
    await telemetry.shutdown().catch(() => undefined);
    const done: FromWorker = {
      type: 'finished',
      lines: ownLines,
      stats: sink.stats(),
      delivered: delivery.result(),
    };
    port.postMessage(done);
    return;
  }
  const notes: Notes = { rejected: [], unknown: [] };
  const bad = new Map(message.bad.map((b) => [b.index, b]));
  for (let i = 0; i < message.text.length; i += 1) {
    const due = take(
      message.input[i]!,
      message.lineNumber[i]!,
      message.text[i] ?? null,
      message.dialect[i] ?? setup.options.dialect,
      bad.get(i),
      notes,
    );
    const waiting = due ? flushes.due() : undefined;
    if (waiting !== undefined) await waiting;
  }
  const reply: FromWorker = { type: 'done-batch', ...notes };
  port.postMessage(reply);
}
