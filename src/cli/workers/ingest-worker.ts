// One ingest worker thread: its own sink, tracker and export pipeline for the runs the main thread
// routes to it (a run's lines always to the same worker).
import { parentPort, workerData } from 'node:worker_threads';
import type { EventStream } from '../../sink/agent-otel-sink.js';
import type { InputDialect } from '../../events/dialect-name.js';
import { startExportingSink } from '../command-sink.js';
import type { FromWorker, Rejected, ToWorker, Unknown, WorkerSetup } from './worker-protocol.js';

const FLUSH_EVERY_LINES = 4096;

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

let lines = 0;
let queue: Promise<void> = Promise.resolve();
port.on('message', (message: ToWorker) => {
  // Batches are handled one after another, exports awaited between them.
  queue = queue.then(() => handle(message));
});

async function handle(message: ToWorker): Promise<void> {
  if (message.type === 'end') {
    sink.endOpenRuns('end_of_input');
    await sink.shutdown();
    await telemetry.shutdown().catch(() => undefined);
    const done: FromWorker = {
      type: 'finished',
      stats: sink.stats(),
      delivered: delivery.result(),
    };
    port.postMessage(done);
    return;
  }
  const rejected: Rejected[] = [];
  const unknown: Unknown[] = [];
  const bad = new Map(message.bad.map((b) => [b.index, b]));
  for (let i = 0; i < message.text.length; i += 1) {
    const text = message.text[i];
    const input = message.input[i]!;
    const reader = bad.get(i);
    const result =
      text === null || text === undefined
        ? sink.reject(reader?.reason ?? 'invalid_line', reader?.message ?? 'unreadable line')
        : streamOf(input, message.dialect[i] ?? setup.options.dialect).handleJson(text);
    if (result.outcome === 'rejected')
      rejected.push({
        input,
        lineNumber: message.lineNumber[i]!,
        message: result.message ?? result.reason ?? '',
      });
    if (result.outcome === 'ignored' && result.reason === 'unknown_variant')
      unknown.push({
        input,
        lineNumber: message.lineNumber[i]!,
        message: result.message ?? 'unknown event type',
        key: `${result.dialect}:${result.sourceType ?? ''}`,
      });
    lines += 1;
    if (lines % FLUSH_EVERY_LINES === 0) await telemetry.flushTraces().catch(() => undefined);
  }
  const reply: FromWorker = { type: 'done-batch', rejected, unknown };
  port.postMessage(reply);
}
