import type { Attributes, Context, HrTime, Span, SpanContext } from '@opentelemetry/api';
import type { DialectName } from '../events/dialect-name.js';
import type { Instruments } from './metrics/instruments.js';
import type { Recent } from './recency-list.js';
import type { SpanBudget } from './spans/span-budget.js';

/**
 * Mutable model identity of a run or call (a lazily opened run learns it later; a runtime may
 * name a call's only when its message is committed): fields of the record itself.
 */
export interface MutableModel {
  provider: string | undefined;
  model: string | undefined;
}

export interface IterationRecord extends SpanBudget {
  readonly number: number;
  readonly span: Span;
}

/** A span event (or, without a name, attributes) for a span that is created later. */
export interface SpanNote {
  readonly name: string | undefined;
  readonly attributes: Attributes;
  readonly time: HrTime;
}

/**
 * A model call. Its span is made when the call has settled — its message committed and its usage
 * in (`settleChat`) — or else when its run ends, so that usage reported after the call's end still
 * lands on it; until then an open run holds a few fields per call instead of a live span.
 */
export interface ChatRecord extends SpanBudget, MutableModel {
  readonly iteration: number;
  /** The call's parent: the iteration span's span context only (an ended span is not kept alive). */
  readonly parent: SpanContext;
  readonly conversationId: string | undefined;
  readonly start: HrTime;
  /** Span events and attributes for the call's span, in order (within its budget); made at the first. */
  notes: SpanNote[] | undefined;
  finishReason: string | undefined;
  /** When the call ended. Its span is made once it has settled (see `settleChat`). */
  end: HrTime | undefined;
  /** Its message was committed (AssistantMessageCommitted): nothing but usage is still to come. */
  committed: boolean;
  /** Usage was reported for it. */
  usageSeen: boolean;
  incomplete: boolean;
  /** Set when the call failed with its run. */
  errorType: string | undefined;
  firstChunk: HrTime | undefined;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  cacheReadTokens: number | undefined;
  cacheCreationTokens: number | undefined;
  reasoningTokens: number | undefined;
  /** When its latest chunk arrived (for the time per output chunk). */
  lastChunk: HrTime | undefined;
  /** Streamed text, kept only when content capture is on. */
  text: string;
}

export interface ToolRecord extends SpanBudget {
  readonly span: Span;
  readonly callId: string;
  readonly name: string;
  readonly start: HrTime;
}

/** Everything the bridge remembers about one open run. */
export interface RunRecord extends SpanBudget, MutableModel, Recent<RunRecord> {
  readonly runId: string;
  readonly traceId: string;
  readonly dialect: DialectName;
  readonly span: Span;
  /** The run span's own parent context (the sink's `parentContext`, else the root context). */
  readonly parent: Context;
  readonly start: HrTime;
  readonly synthesized: boolean;
  /** The run's agent: its own (`RunStarted.agentName`, a sub-agent's) or the sink's. */
  readonly agentName: string | undefined;
  /**
   * Prefix of the roles its span ids are made from: empty for a run in its own trace; a
   * sub-agent's spans share its parent's trace, so theirs are `subagent/<run id>/…`.
   */
  readonly roleScope: string;
  conversationId: string | undefined;
  /** Latest event time seen; an abandoned run ends here. */
  lastSeen: HrTime;
  /** The type of the latest event applied (for the view of open runs). */
  lastEvent: string;
  /** Wall-clock milliseconds of the last event, for the idle timeout. */
  lastActivityMillis: number;
  iteration: IterationRecord | undefined;
  /** The model call in progress, if any. */
  chat: ChatRecord | undefined;
  /** The run's model calls whose spans are not made yet (made as each settles, or at run end). */
  readonly chats: ChatRecord[];
  /** Model calls whose spans were made before the run's end. */
  chatsMade: number;
  /** The ids of the spans started for the run, its own first. */
  readonly spanIds: string[];
  pendingMessageCount: number | undefined;
  highestIteration: number;
  iterationCount: number;
  /** Tool executions in progress by call id; none while no tool runs. */
  tools: Map<string, ToolRecord> | undefined;
  readonly finishedTools: Set<string>;
  /** Captured tool arguments by call id (content capture only). */
  toolArguments: Map<string, string> | undefined;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  /** US dollars of the run's priced calls (and usage reported after them). */
  costUsd: number | undefined;
  /** Calls (and late usage reports) priced, and left unpriced. */
  pricedCalls: number;
  unpricedCalls: number;
  sawDoomLoop: boolean;
  /** Some of its events were timed by their arrival: its durations stay out of the histograms. */
  timedByArrival: boolean;
  /**
   * Where the run's metrics go: the sink's instruments, or no-op ones when the run is rebuilt
   * from redelivered events after its metrics were already recorded (each run counts once).
   */
  readonly instruments: Instruments;
  /** Metric writes made for the run while it was open (see `recordOnce`). */
  metricWrites: number;
  /** Writes this process made for the run before it was let go and rebuilt: not made again. */
  replayedWrites: number;
}
