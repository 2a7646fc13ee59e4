// One share of `ingest --workers N`: its own sink, tracker and export pipeline for the runs routed
// to it (a run's lines always to the same share), and for its own lines of the files it reads
// itself. A worker thread runs one (ingest-thread.ts); where every input is a regular file, the
// main thread runs the first itself (ingest-main.ts), so that N shares cost N isolates, not N + 1.
import { createReadStream } from 'node:fs';
import type { HandleResult } from '../../sink/agent-otel-sink.js';
import type { LaneStream } from '../../sink/bridge-sink-api.js';
import { LINES_AT_ONCE } from '../../sink/line-decoding.js';
import { mapLineSlice } from '../../sink/map-line-slice.js';
import type { InputDialect } from '../../events/dialect-name.js';
import { DEFAULT_MAX_LINE_BYTES, eachLine } from '../../sources/ndjson-lines.js';
import { startExportingSink } from '../command-sink.js';
import { PacedFlush } from '../paced-flush.js';
import { createInputRouter } from './input-router.js';
import { routedSlices } from './routed-slices.js';
import type { ReadLine } from './routed-slices.js';
import type { FromWorker, Rejected, ToWorker, Unknown, WorkerSetup } from './worker-protocol.js';

const FLUSH_EVERY_LINES = 4096;
/** Own lines of a file read between two reports of its rejected and unknown lines. */
const REPORT_EVERY_LINES = 512;

/** A share at work: it takes what the main thread sends, one message after another. */
export interface IngestShare {
  /** A batch of routed lines, or the end (then the share says `finished`). */
  take(message: ToWorker): void;
}

interface Notes {
  rejected: Rejected[];
  unknown: Unknown[];
}

/**
 * Starts a share: it begins reading its own lines of `setup.files` at once. What it has to say
 * goes to `say`; a failure (a file it cannot read, a batch it cannot map) to `fail`, after which
 * it says nothing more of its own accord.
 */
export function startIngestShare(
  setup: WorkerSetup,
  say: (message: FromWorker) => void,
  fail: (error: unknown) => void,
): IngestShare {
  const { sink, telemetry, delivery } = startExportingSink(setup.env, setup.options, {
    countWindowsInEvents: true,
  });
  // One stream per input and dialect: an input's lines read before its dialect was known and
  // those read as behest after are apart (behest runs carry their ids; nothing else is split).
  const streams = new Map<string, LaneStream>();
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
  const answers: HandleResult[] = [];
  /**
   * Maps a slice of one input's lines read in one dialect (decoded before any is applied) and
   * notes what to say of them; true when the spans made since the last flush are due to be
   * exported.
   */
  const take = (
    input: number,
    dialect: InputDialect,
    slice: readonly ReadLine[],
    notes: Notes,
  ): boolean => {
    mapLineSlice(sink, streamOf(input, dialect), slice, 0, slice.length, answers);
    for (let i = 0; i < slice.length; i += 1) {
      const result = answers[i]!;
      const { lineNumber } = slice[i]!;
      if (result.outcome === 'rejected')
        notes.rejected.push({ input, lineNumber, message: result.message ?? result.reason ?? '' });
      if (result.outcome === 'ignored' && result.reason === 'unknown_variant')
        notes.unknown.push({
          input,
          lineNumber,
          message: result.message ?? 'unknown event type',
          key: `${result.dialect}:${result.sourceType ?? ''}`,
        });
    }
    const before = lines;
    lines += slice.length;
    return Math.floor(lines / FLUSH_EVERY_LINES) !== Math.floor(before / FLUSH_EVERY_LINES);
  };

  const flushes = new PacedFlush(() => telemetry.flushTraces());

  let ownLines = 0;
  /** Reads a whole file, taking the lines that route to this share; the others stay bytes. */
  const readOwn = async (file: WorkerSetup['files'][number]): Promise<void> => {
    const router = createInputRouter(
      setup.options.dialect,
      setup.inputs[file.input] ?? file.path,
      setup.workers,
    );
    let notes: Notes = { rejected: [], unknown: [] };
    let since = 0;
    const report = () => {
      if (notes.rejected.length > 0 || notes.unknown.length > 0) {
        say({ type: 'report', ...notes });
        notes = { rejected: [], unknown: [] };
      }
      since = 0;
    };
    // Own lines wait for a slice to fill (or the dialect to change) before they are mapped.
    let slice: ReadLine[] = [];
    let sliceDialect = router.dialect;
    const takeSlice = (): boolean => {
      if (slice.length === 0) return false;
      const due = take(file.input, sliceDialect, slice, notes);
      since += slice.length;
      slice = [];
      if (since >= REPORT_EVERY_LINES) report();
      return due;
    };
    await eachLine(
      createReadStream(file.path),
      DEFAULT_MAX_LINE_BYTES,
      router.keepFor(setup.self),
      (line) => {
        if (router.route(line) !== setup.self) return undefined;
        ownLines += 1;
        let due = false;
        if (router.dialect !== sliceDialect) {
          due = takeSlice();
          sliceDialect = router.dialect;
        }
        slice.push(line);
        if (slice.length >= LINES_AT_ONCE) due = takeSlice() || due;
        return due ? flushes.due() : undefined;
      },
    );
    if (takeSlice()) await flushes.due();
    report();
  };

  let failed = false;
  const failOnce = (error: unknown) => {
    if (failed) return;
    failed = true;
    fail(error);
  };
  // A file that fails to read fails the share (and the command).
  const ownReads = Promise.all(setup.files.map(readOwn));
  ownReads.catch(failOnce);

  const handle = async (message: ToWorker): Promise<void> => {
    if (message.type === 'end') {
      await ownReads;
      await flushes.settled();
      sink.endOpenRuns('end_of_input');
      await sink.shutdown();
      await telemetry.shutdown().catch(() => undefined);
      say({ type: 'finished', lines: ownLines, stats: sink.stats(), delivered: delivery.result() });
      return;
    }
    const notes: Notes = { rejected: [], unknown: [] };
    for (const { input, dialect, lines } of routedSlices(
      message,
      setup.options.dialect,
      LINES_AT_ONCE,
    )) {
      const waiting = take(input, dialect, lines, notes) ? flushes.due() : undefined;
      if (waiting !== undefined) await waiting;
    }
    say({ type: 'done-batch', ...notes });
  };

  // Messages are handled one after another, exports awaited between them.
  let queue: Promise<void> = Promise.resolve();
  return {
    take(message) {
      queue = queue.then(() => (failed ? undefined : handle(message).catch(failOnce)));
    },
  };
}
