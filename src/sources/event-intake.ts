import type { InputDialect } from '../events/dialect-name.js';
import type { BridgeSink, LaneStream } from '../sink/bridge-sink-api.js';
import type { HandleResult } from '../sink/agent-otel-sink.js';
import { LINES_AT_ONCE } from '../sink/line-decoding.js';
import { mapLineSlice } from '../sink/map-line-slice.js';
import type { SliceLine } from '../sink/map-line-slice.js';
import type { OpenRunsView } from './open-runs-answer.js';

/** A line of a request: its text, or why the reader refused it before parsing. */
export type IntakeLine = SliceLine;

/** The stream a request's lines belong to: named across requests, or the request's own. */
export interface IntakeStream {
  /** `X-Agent-Stream` (then `named`), else the request's own name. */
  readonly scope: string;
  readonly named: boolean;
  readonly dialect: InputDialect;
}

/** What became of one line, as a request's answer reports it. */
export type LineOutcome = Pick<HandleResult, 'outcome' | 'reason' | 'message' | 'path'>;

/**
 * Where a server's requests go: a sink on this thread, or sinks on worker threads. `handle`
 * answers each line's outcome, in the order of `lines`.
 */
export interface EventIntake {
  handle(
    lines: readonly IntakeLine[],
    stream: IntakeStream,
  ): readonly LineOutcome[] | Promise<readonly LineOutcome[]>;
  /** Counts a hit of the server's own limit (request rate, body size, …); says so once. */
  limitHit(limit: string, message: string): void;
  /** The runs in progress, oldest first, at most `limit` (`GET /runs`). */
  openRuns(limit: number): OpenRunsView | Promise<OpenRunsView>;
}

/** Named streams kept at most (the oldest is forgotten first). */
export const MAX_NAMED_STREAMS = 10_000;

/** The intake of one thread: every line through `sink`, a stream per request or per name. */
export function sinkIntake(sink: BridgeSink): EventIntake {
  const named = new Map<string, LaneStream>();
  const streamFor = ({ scope, named: isNamed, dialect }: IntakeStream): LaneStream => {
    if (!isNamed) return sink.openStream(scope, dialect);
    const key = `${dialect}\0${scope}`;
    let stream = named.get(key);
    if (stream === undefined) {
      stream = sink.openStream(scope, dialect);
      named.set(key, stream);
      if (named.size > MAX_NAMED_STREAMS) named.delete(named.keys().next().value!);
    }
    return stream;
  };
  return {
    handle(lines, stream) {
      const events = streamFor(stream);
      // A slice of lines at a time, each decoded before any of it is applied.
      const answers: HandleResult[] = new Array<HandleResult>(lines.length);
      const slice: HandleResult[] = [];
      for (let from = 0; from < lines.length; from += LINES_AT_ONCE) {
        const to = Math.min(lines.length, from + LINES_AT_ONCE);
        mapLineSlice(sink, events, lines, from, to, slice);
        for (let i = from; i < to; i += 1) answers[i] = slice[i - from]!;
      }
      return answers;
    },
    limitHit: (limit, message) => sink.limitHit(limit, message),
    openRuns: (limit) => sink.openRuns(limit),
  };
}
