import type { InputDialect } from '../events/dialect-name.js';
import type { BridgeSink } from '../sink/bridge-sink-api.js';
import type { EventStream, HandleResult } from '../sink/agent-otel-sink.js';
import type { OpenRunsView } from './open-runs-answer.js';

/** A line of a request: its text, or why the reader refused it before parsing. */
export type IntakeLine =
  { readonly text: string } | { readonly reason: string; readonly message: string };

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
  const named = new Map<string, EventStream>();
  const streamFor = ({ scope, named: isNamed, dialect }: IntakeStream): EventStream => {
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
      return lines.map((line) =>
        'text' in line ? events.handleJson(line.text) : sink.reject(line.reason, line.message),
      );
    },
    limitHit: (limit, message) => sink.limitHit(limit, message),
    openRuns: (limit) => sink.openRuns(limit),
  };
}
