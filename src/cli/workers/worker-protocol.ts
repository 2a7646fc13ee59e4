import type { InputDialect } from '../../events/dialect-name.js';
import type { SinkStats } from '../../sink/agent-otel-sink.js';
import type { CommonOptions } from '../command.js';
import type { LineOutcome } from '../../sources/event-intake.js';
import type { OpenRunsView } from '../../sources/open-runs-answer.js';

// What the main thread and the ingest workers tell each other.

/** A worker's start: the common options and the environment it exports with. */
export interface WorkerSetup {
  readonly options: CommonOptions;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly inputs: readonly string[];
  /** This worker's place among them (0…workers−1). */
  readonly self: number;
  readonly workers: number;
  /**
   * Inputs every worker reads itself from the start, each taking the lines that route to it:
   * regular files, read to their end. Nothing of them passes between threads.
   */
  readonly files: readonly { readonly input: number; readonly path: string }[];
}

/** Lines for one worker: parallel arrays (cheap to copy between threads). */
export interface LineBatch {
  readonly type: 'lines';
  readonly input: number[];
  readonly lineNumber: number[];
  /** The line, or null for a line the reader rejected (see `bad`). */
  readonly text: (string | null)[];
  /** The dialect a worker opens the line's input stream with (when it has not yet). */
  readonly dialect: InputDialect[];
  readonly bad: { readonly index: number; readonly reason: string; readonly message: string }[];
}

export type ToWorker = LineBatch | { readonly type: 'end' };

/** A rejected line, for the main thread to say where it was. */
export interface Rejected {
  readonly input: number;
  readonly lineNumber: number;
  readonly message: string;
}

/** A line of an event type nobody maps: the main thread says it once per type. */
export interface Unknown extends Rejected {
  /** The dialect and the runtime's own type name. */
  readonly key: string;
}

export type FromWorker =
  | { readonly type: 'done-batch'; readonly rejected: Rejected[]; readonly unknown: Unknown[] }
  /** Rejected and unknown lines of the files a worker reads itself, said as they are met. */
  | { readonly type: 'report'; readonly rejected: Rejected[]; readonly unknown: Unknown[] }
  | {
      readonly type: 'finished';
      /** Lines this worker took from the files it read itself. */
      readonly lines: number;
      readonly stats: SinkStats;
      readonly delivered: { spans: number; delivered: number; metricFailures: number };
    };

// What `serve --workers` and its worker threads tell each other.

/** A serve worker's start. */
export interface ServeWorkerSetup {
  readonly options: CommonOptions;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The lines of one request that belong to one worker: parallel arrays, as for ingest. */
export interface RequestBatch {
  readonly type: 'request';
  readonly id: number;
  /** The stream's name: `X-Agent-Stream`, or the request's own (then `named` is false). */
  readonly scope: string;
  readonly named: boolean;
  /** The line, or null for a line the server refused before parsing (see `bad`). */
  readonly text: (string | null)[];
  /** The dialect the worker reads each line in. */
  readonly dialect: InputDialect[];
  readonly bad: { readonly index: number; readonly reason: string; readonly message: string }[];
}

export type ToServeWorker =
  | RequestBatch
  | { readonly type: 'runs'; readonly id: number; readonly limit: number }
  | { readonly type: 'limit'; readonly limit: string; readonly message: string }
  | { readonly type: 'end' };

/** Whether a worker's collector is in trouble, as `serve` admits requests by it. */
export interface ExportStatus {
  readonly inOutage: boolean;
  /** Spans made and not yet acknowledged, or in and past the span queue if more. */
  readonly backlog: number;
}

export type FromServeWorker =
  | {
      readonly type: 'answer';
      readonly id: number;
      readonly outcomes: LineOutcome[];
      readonly status: ExportStatus;
    }
  | { readonly type: 'status'; readonly status: ExportStatus }
  | { readonly type: 'runs'; readonly id: number; readonly view: OpenRunsView }
  | {
      readonly type: 'finished';
      readonly stats: SinkStats;
      readonly delivered: { spans: number; delivered: number; metricFailures: number };
    };
