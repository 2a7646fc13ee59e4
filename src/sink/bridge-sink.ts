import { diag, metrics, trace } from '@opentelemetry/api';
import type { EventOutcome, HandleResult } from './agent-otel-sink.js';
import { resolveConfig } from '../config.js';
import { createLineDecoder } from '../dialects/detect.js';
import type { LineDecoder } from '../dialects/detect.js';
import type { ParseResult } from '../dialects/shared/parse-result.js';
import type { DialectName, InputDialect } from '../events/dialect-name.js';
import { createTrackedArrivalClock } from '../dialects/shared/stream-clock.js';
import { RunIdClaims } from './run-id-claims.js';
import type { AgentEvent } from '../events/agent-event.js';
import { nativeEventProblem } from '../events/native-event-check.js';
import { flushProviders } from './flush-providers.js';
import { acceptedAnswer, InputOutcome, sinkClosed } from './input-outcome.js';
import { createSinkMapping } from './sink-mapping.js';
import type { AgentOtelSinkOptions } from '../sink-options.js';
import { PACKAGE_NAME } from '../version.js';
import type { BridgeSink, BridgeSinkHooks, LaneStream } from './bridge-sink-api.js';
import { Housekeeping } from './housekeeping.js';
import { decodeLineOf, decodeThenApply } from './line-decoding.js';
import type { DecodedLine, LineStreamState } from './line-decoding.js';

const log = diag.createComponentLogger({ namespace: PACKAGE_NAME });

/** The sink with the sources' own entry points (the CLI's sources use it). */
export function createBridgeSink(
  options: AgentOtelSinkOptions = {},
  hooks: BridgeSinkHooks = {},
): BridgeSink {
  const config = resolveConfig(options);
  const tracerProvider = config.tracerProvider ?? trace.getTracerProvider();
  const meterProvider = config.meterProvider ?? metrics.getMeterProvider();
  const { tracker, buffer, tally, limitHit, scrub, guardIdentifiers, stopGauges } =
    createSinkMapping(config, tracerProvider, meterProvider, log);
  const events: Record<EventOutcome, number> = {
    accepted: 0,
    rejected: 0,
    ignored: 0,
    late: 0,
    duplicate: 0,
  };
  const housekeeping = new Housekeeping(config, buffer, tracker, safely);
  let closed = false;

  const count = (result: HandleResult): HandleResult => {
    events[result.outcome] += 1;
    tally.add(result.dialect, result.outcome, result.reason);
    return result;
  };

  /**
   * Offers event `index` of an input (arrived by `lane`) to its run; `input` hears what became of
   * a held one.
   */
  const apply = (
    event: AgentEvent,
    dialect: DialectName,
    input: InputOutcome,
    index: number,
    lane: number,
  ): void => {
    if (closed) {
      input.offered(index, sinkClosed(dialect, event.runId), false);
      return;
    }
    input.expect();
    try {
      const guarded = guardIdentifiers(event);
      const offered = buffer.offer(guarded, dialect, input, index, lane);
      if (offered.outcome === 'accepted') hooks.onAccepted?.(guarded, dialect);
      housekeeping.start();
      input.offered(
        index,
        offered.outcome === 'accepted'
          ? acceptedAnswer(dialect, event.runId, input.sourceType)
          : { ...offered, dialect, runId: event.runId },
        offered.outcome === 'accepted' && offered.held === true,
      );
    } catch (error) {
      log.error(`failed to map ${event.type} of run ${event.runId}`, error);
      input.offered(
        index,
        {
          outcome: 'rejected',
          dialect,
          reason: 'internal_error',
          message: 'internal error while mapping; see diagnostics',
          runId: event.runId,
        },
        false,
      );
    }
  };

  /** Maps the events of one input and counts the input once (see `InputOutcome`). */
  const applyAll = (
    events: readonly AgentEvent[],
    dialect: DialectName | 'unknown',
    sourceType: string | undefined,
    counted: (result: HandleResult) => HandleResult = count,
    lane = 0,
  ): HandleResult => {
    const input = new InputOutcome(dialect, sourceType, counted);
    const eventDialect = dialect === 'unknown' ? 'native' : dialect;
    for (let i = 0; i < events.length; i += 1) apply(events[i]!, eventDialect, input, i, lane);
    return input.finish();
  };

  const applyParsed = (
    result: ParseResult,
    dialect: DialectName | 'unknown',
    lane = 0,
  ): HandleResult => {
    const sourceType = 'sourceType' in result ? result.sourceType : undefined;
    if (!result.ok) {
      if (result.outcome === 'ignored') log.debug(result.message);
      return count({
        outcome: result.outcome,
        dialect,
        reason: result.reason,
        // A rejection may quote the input: it leaves the process scrubbed, like any free text.
        message: scrub(result.message),
        ...('path' in result && result.path !== undefined ? { path: result.path } : {}),
        ...(sourceType === undefined ? {} : { sourceType }),
      });
    }
    return applyAll(result.events, dialect, sourceType, count, lane);
  };

  /** A decoder's fault: a counted rejection, never a throw. */
  const decodeFault = (decoder: LineDecoder, error: unknown): HandleResult => {
    log.error('failed to decode a line', error);
    return count({
      outcome: 'rejected',
      dialect: decoder.dialect ?? 'unknown',
      reason: 'internal_error',
      message: 'internal error while decoding; see diagnostics',
    });
  };
  const applyDecoded = (decoded: DecodedLine, lane = 0): HandleResult =>
    'result' in decoded ? applyParsed(decoded.result, decoded.dialect, lane) : decoded;
  const decodeAndApply = (stream: LineStreamState, line: string, lane = 0): HandleResult =>
    applyDecoded(decodeLineOf(stream, line, decodeFault), lane);

  const claims = new RunIdClaims();
  const streams = new Map<string, LineStreamState>();
  /** A stream's decoding: runs without ids are scoped to `scope`, run ids claimed under `claimAs`. */
  const streamState = (scope: string, dialect: InputDialect, claimAs = scope): LineStreamState => {
    const clock = createTrackedArrivalClock(config.now);
    const decoder = createLineDecoder(dialect, {
      scope,
      arrival: clock.now,
      maxJsonDepth: config.maxJsonDepth,
    });
    return { decoder, clock, claim: claims.stream(claimAs) };
  };
  const openStream = (scope: string, dialect: InputDialect = config.dialect): LaneStream => {
    const stream = streamState(scope, dialect);
    return {
      get dialect() {
        return stream.decoder.dialect;
      },
      handleJson: (line, lane) => decodeAndApply(stream, line, lane),
      handleJsonLines: (lines, into, lane) =>
        decodeThenApply(
          lines,
          into,
          (line) => decodeLineOf(stream, line, decodeFault),
          (decoded) => applyDecoded(decoded, lane),
        ),
    };
  };

  return {
    handle(event) {
      const problem = nativeEventProblem(event);
      if (problem !== undefined) {
        const [path, message] = problem;
        return count({
          outcome: 'rejected',
          dialect: 'native',
          reason: 'schema',
          path,
          message: path === '' ? message : `${path}: ${message}`,
        });
      }
      return applyAll([event], 'native', undefined);
    },
    handleJson(line, dialect = config.dialect) {
      let stream = streams.get(dialect);
      if (stream === undefined) {
        stream = streamState('default', dialect, `default/${dialect}`);
        streams.set(dialect, stream);
      }
      return decodeAndApply(stream, line);
    },
    handleParsed: applyParsed,
    openStream,
    limitHit,
    reject(reason, message) {
      return count({ outcome: 'rejected', dialect: 'unknown', reason, message });
    },
    forgetRun(runId) {
      tracker.forget(runId);
    },
    restoreRun(events, dialect, metricWrites = 0, lane = 0) {
      const runId = events[0]?.runId;
      if (runId !== undefined) safely(() => tracker.expectReplay(runId, metricWrites));
      // Counted once already, where they were first taken; not new input to the windows either.
      buffer.replaying = true;
      try {
        applyAll(events, dialect, undefined, (result) => result, lane);
      } finally {
        buffer.replaying = false;
      }
    },
    metricWritesOf(runId) {
      return tracker.metricWritesOf(runId);
    },
    markFinished(runId) {
      safely(() => tracker.markFinished(runId));
    },
    holdFor(millis, lane) {
      const release = safely(() => buffer.holdFor(millis, lane));
      return () => safely(() => release?.());
    },
    readThrough(through) {
      buffer.readThrough = (lane) => safely(() => through(lane)) ?? Infinity;
    },
    dropRun(runId) {
      safely(() => {
        buffer.discard(runId);
        tracker.discard(runId);
      });
    },
    endOpenRuns(reason = 'end_of_input') {
      safely(() => buffer.drain());
      return safely(() => tracker.abandonAll(reason)) ?? 0;
    },
    openRuns(limit) {
      return { open: tracker.openRuns, runs: safely(() => tracker.openRunsView(limit)) ?? [] };
    },
    stats() {
      return {
        events: { ...events },
        runs: { open: tracker.openRuns, ...tracker.outcomes },
        cost: { ...tracker.cost },
      };
    },
    flush() {
      // Runs that have ended wait for nothing more: their grace ends now, so they are exported.
      safely(() => buffer.closeEnded());
      return flushProviders(tracerProvider, meterProvider);
    },
    async shutdown(options = {}) {
      if (closed) return;
      closed = true;
      housekeeping.stop();
      // Nothing more is coming: held events are applied and runs in their grace period end.
      safely(() => buffer.drain());
      if (options.endOpenRuns !== false) safely(() => tracker.abandonAll('shutdown'));
      await flushProviders(tracerProvider, meterProvider);
      stopGauges();
    },
  };
}

function safely<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch (error) {
    log.error('unexpected error', error);
    return undefined;
  }
}
