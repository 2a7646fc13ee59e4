import type { DialectName } from '../events/dialect-name.js';
import type { InputDialect } from '../events/dialect-name.js';
import type { AgentEvent } from '../events/agent-event.js';
import type { EvictionReason } from '../mapping/run-tracker.js';

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
  /** The ended runs' cost: US dollars of their priced model calls, calls priced and unpriced. */
  readonly cost: Readonly<Record<'usd' | 'pricedCalls' | 'unpricedCalls', number>>;
}

export interface AgentOtelSink {
  /**
   * Maps one canonical event. Never throws. Unless both reorder windows are 0, the event is held
   * for its run's time order and the answer is `accepted` (or at once `duplicate`/`late`); what
   * the tracker then makes of it is counted in `stats()` and `agent_bridge.events`.
   */
  handle(event: AgentEvent): HandleResult;
  /** Parses one line of JSON in a dialect and maps it (one default stream per dialect). Never throws. */
  handleJson(line: string, dialect?: InputDialect): HandleResult;
  /** A stream of its own, for inputs whose runtime carries no run ids (oxi, agent-sdk, crabtalk). */
  openStream(scope: string, dialect?: InputDialect): EventStream;
  /** Ends every open run as abandoned (e.g. at the end of a finite input). Returns how many. */
  endOpenRuns(reason?: Extract<EvictionReason, 'end_of_input' | 'shutdown'>): number;
  /** Counts so far, for progress displays. */
  stats(): SinkStats;
  /**
   * Exports what has ended so far through the providers' processors and readers. Runs whose
   * terminal event was handled end now (their held events applied, their grace period cut short),
   * so a host that flushes right after a run's end and exits loses nothing. Open runs stay open.
   */
  flush(): Promise<void>;
  /**
   * Ends open runs as abandoned (unless `endOpenRuns: false`: a source that will redeliver their
   * events keeps them for the next start), stops timers and flushes. Providers stay the caller's.
   */
  shutdown(options?: { readonly endOpenRuns?: boolean }): Promise<void>;
}
