import { diag, metrics, trace } from '@opentelemetry/api';
import { resolveConfig } from './config.js';
import { flushProviders } from './flush-providers.js';
import type { AgentOtelSinkOptions } from './config.js';
import { createLineDecoder } from './dialects/detect.js';
import type { InputDialect, LineDecoder } from './dialects/detect.js';
import type { DialectName, ParseResult } from './dialects/parse-result.js';
import { createArrivalClock } from './dialects/stream-clock.js';
import type { AgentEvent } from './events/agent-event.js';
import { eventTallyFor } from './mapping/event-tally.js';
import { createEventsCounter, createInstruments } from './mapping/metrics.js';
import { RunTracker } from './mapping/run-tracker.js';
import type { EvictionReason } from './mapping/run-tracker.js';
import { truncateChars } from './mapping/content.js';
import { createLimitReporter } from './mapping/limit-report.js';
import { createScrubber } from './mapping/scrub.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

export type EventOutcome = 'accepted' | 'rejected' | 'ignored' | 'late' | 'duplicate';

/** What the sink did with one input. */
export interface HandleResult {
  readonly outcome: EventOutcome;
  readonly dialect: DialectName | 'unknown';
  /** Short code (also the `agent_bridge.reason` metric attribute) when not accepted. */
  readonly reason?: string;
  /** One human-readable line when not accepted. */
  readonly message?: string;
  /** Dotted field path of a schema rejection, e.g. `RunStarted.timestamp`. */
  readonly path?: string;
  /** The run the input belonged to, when it could be read. */
  readonly runId?: string;
  /** The runtime's own name for the input (`RunStarted`, `messageEnd`, `tool_call_end`, …). */
  readonly sourceType?: string;
}

/** One input stream (a file, a request, a conversation): runs without ids are scoped to it. */
export interface EventStream {
  /** Parses one line of JSON and maps it. Never throws. */
  handleJson(line: string): HandleResult;
  /** The dialect the stream is locked to once auto-detection is sure. */
  readonly dialect: DialectName | undefined;
}

export interface SinkStats {
  readonly events: Readonly<Record<EventOutcome, number>>;
  readonly runs: { readonly open: number } & Readonly<
    Record<'completed' | 'failed' | 'cancelled' | 'abandoned', number>
  >;
}

export interface AgentOtelSink {
  /** Maps one canonical event. Never throws. */
  handle(event: AgentEvent): HandleResult;
  /** Parses one line of JSON in a dialect and maps it (one default stream per dialect). Never throws. */
  handleJson(line: string, dialect?: InputDialect): HandleResult;
  /** A stream of its own, for inputs whose runtime carries no run ids (oxi, agent-sdk, crabtalk). */
  openStream(scope: string, dialect?: InputDialect): EventStream;
  /** Maps what a source decoded itself (e.g. crabtalk daemon frames). Never throws. */
  handleParsed(result: ParseResult, dialect: DialectName | 'unknown'): HandleResult;
  /** Counts a hit of a source's own limit (e.g. `request_rate`) in `agent_bridge.limits.hit`; says so once. */
  limitHit(limit: string, message: string): void;
  /** Counts an input the caller rejected before parsing (an oversize line, invalid UTF-8). */
  reject(reason: string, message: string): HandleResult;
  /** Ends every open run as abandoned (e.g. at the end of a finite input). Returns how many. */
  endOpenRuns(reason?: Extract<EvictionReason, 'end_of_input' | 'shutdown'>): number;
  /** Forgets a finished run so that its redelivered events rebuild it (after a failed export). */
  forgetRun(runId: string): void;
  /** Counts so far, for progress displays. */
  stats(): SinkStats;
  /** Exports what has ended so far through the providers' processors and readers. */
  flush(): Promise<void>;
  /**
   * Ends open runs as abandoned (unless `endOpenRuns: false`: a source that will redeliver their
   * events keeps them for the next start), stops timers and flushes. Providers stay the caller's.
   */
  shutdown(options?: { readonly endOpenRuns?: boolean }): Promise<void>;
}

const log = diag.createComponentLogger({ namespace: PACKAGE_NAME });

/** Creates the event sink. Registers nothing globally; throws `ConfigError` on bad options only. */
export function createAgentOtelSink(options: AgentOtelSinkOptions = {}): AgentOtelSink {
  const config = resolveConfig(options);
  const tracerProvider = config.tracerProvider ?? trace.getTracerProvider();
  const meterProvider = config.meterProvider ?? metrics.getMeterProvider();
  const meter = meterProvider.getMeter(PACKAGE_NAME, PACKAGE_VERSION);
  const instruments = createInstruments(meter);
  const tally = eventTallyFor(meterProvider, () => createEventsCounter(meter));
  const limitHit = createLimitReporter(instruments.limitsHit, log);
  const scrub = createScrubber(config.scrubPatterns);
  const maxLength = config.maxAttributeLength;
  const tracker = new RunTracker({
    tracer: tracerProvider.getTracer(PACKAGE_NAME, PACKAGE_VERSION),
    instruments,
    scrub,
    freeText: (text) => {
      const scrubbed = scrub(text);
      if (scrubbed.length <= maxLength) return scrubbed;
      limitHit(
        'attribute_length',
        `a text attribute was longer than ${maxLength} characters and was cut`,
      );
      return truncateChars(scrubbed, maxLength);
    },
    agentName: config.agentName,
    parentContext: config.parentContext,
    captureContent: config.captureContent,
    maxContentBytes: config.maxContentBytes,
    idleTimeoutMillis: config.idleTimeoutMillis,
    maxOpenRuns: config.maxOpenRuns,
    maxIterationsPerRun: config.maxIterationsPerRun,
    maxToolsPerRun: config.maxToolsPerRun,
    maxEventsPerSpan: config.maxEventsPerSpan,
    maxAttributesPerSpan: config.maxAttributesPerSpan,
    recentEventKeysPerRun: config.recentEventKeysPerRun,
    limitHit,
    finishedRunMemory: config.finishedRunMemory,
    now: config.now,
    onRunEnd: config.onRunEnd,
  });
  const events: Record<EventOutcome, number> = {
    accepted: 0,
    rejected: 0,
    ignored: 0,
    late: 0,
    duplicate: 0,
  };
  let idleTimer: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const count = (result: HandleResult): HandleResult => {
    events[result.outcome] += 1;
    tally.add(result.dialect, result.outcome, result.reason);
    return result;
  };

  const apply = (event: AgentEvent, dialect: DialectName): HandleResult => {
    if (closed) {
      return {
        outcome: 'rejected',
        dialect,
        reason: 'sink_closed',
        message: 'the sink was shut down',
        runId: event.runId,
      };
    }
    try {
      const tracked = tracker.track(event, dialect);
      if (idleTimer === undefined && tracker.openRuns > 0) {
        idleTimer = setInterval(
          () => safely(() => tracker.abandonIdle()),
          config.idleSweepIntervalMillis,
        );
        idleTimer.unref();
      }
      return tracked.outcome === 'accepted'
        ? { outcome: 'accepted', dialect, runId: event.runId }
        : { ...tracked, dialect, runId: event.runId };
    } catch (error) {
      log.error(`failed to map ${event.type} of run ${event.runId}`, error);
      return {
        outcome: 'rejected',
        dialect,
        reason: 'internal_error',
        message: 'internal error while mapping; see diagnostics',
        runId: event.runId,
      };
    }
  };

  const applyParsed = (result: ParseResult, dialect: DialectName | 'unknown'): HandleResult => {
    const source =
      'sourceType' in result && result.sourceType !== undefined
        ? { sourceType: result.sourceType }
        : {};
    if (!result.ok) {
      if (result.outcome === 'ignored') log.debug(result.message);
      return count({
        outcome: result.outcome,
        dialect,
        reason: result.reason,
        message: result.message,
        ...('path' in result && result.path !== undefined ? { path: result.path } : {}),
        ...source,
      });
    }
    const mapped = result.events.map((event) =>
      apply(event, dialect === 'unknown' ? 'native' : dialect),
    );
    return count({ ...combine(mapped, dialect), ...source });
  };

  const streams = new Map<string, LineDecoder>();
  const openStream = (scope: string, dialect: InputDialect = config.dialect): EventStream => {
    const decoder = createLineDecoder(dialect, {
      scope,
      arrival: createArrivalClock(config.now),
      maxJsonDepth: config.maxJsonDepth,
    });
    return {
      get dialect() {
        return decoder.dialect;
      },
      handleJson(line) {
        const { dialect: detected, result } = decoder.decodeLine(line);
        return applyParsed(result, detected);
      },
    };
  };

  return {
    handle(event) {
      return count(apply(event, 'native'));
    },
    handleJson(line, dialect = config.dialect) {
      let stream = streams.get(dialect);
      if (stream === undefined) {
        stream = createLineDecoder(dialect, {
          scope: 'default',
          arrival: createArrivalClock(config.now),
          maxJsonDepth: config.maxJsonDepth,
        });
        streams.set(dialect, stream);
      }
      const { dialect: detected, result } = stream.decodeLine(line);
      return applyParsed(result, detected);
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
    endOpenRuns(reason = 'end_of_input') {
      return safely(() => tracker.abandonAll(reason)) ?? 0;
    },
    stats() {
      return { events: { ...events }, runs: { open: tracker.openRuns, ...tracker.outcomes } };
    },
    flush() {
      return flushProviders(tracerProvider, meterProvider);
    },
    async shutdown(options = {}) {
      if (closed) return;
      closed = true;
      if (idleTimer !== undefined) clearInterval(idleTimer);
      if (options.endOpenRuns !== false) safely(() => tracker.abandonAll('shutdown'));
      await flushProviders(tracerProvider, meterProvider);
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

/** One input may map to several events: it is rejected if one was, late or duplicate if all were. */
function combine(results: readonly HandleResult[], dialect: DialectName | 'unknown'): HandleResult {
  const runId = results[0]?.runId;
  const base = { dialect, ...(runId === undefined ? {} : { runId }) };
  const rejected = results.find((r) => r.outcome === 'rejected');
  if (rejected !== undefined) return { ...rejected, ...base };
  if (
    results.length > 0 &&
    results.every((r) => r.outcome === results[0]!.outcome) &&
    results[0]!.outcome !== 'accepted'
  ) {
    return { ...results[0]!, ...base };
  }
  return { outcome: 'accepted', ...base };
}
