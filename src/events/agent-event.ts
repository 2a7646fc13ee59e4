import type { HrTime } from '@opentelemetry/api';

/**
 * The canonical agent event: what every dialect is parsed into and what the sink maps.
 * Modelled on behest's `AgentEvent` (17 variants), with camelCase fields and times as
 * `HrTime` (seconds and nanoseconds since the epoch).
 */
export type AgentEvent =
  | RunStarted
  | ContextBuilt
  | ModelStarted
  | TextDelta
  | ToolCallStarted
  | ToolCallDelta
  | ToolCallCompleted
  | ToolExecutionStarted
  | ToolExecutionFinished
  | AssistantMessageCommitted
  | ToolMessageCommitted
  | UsageRecorded
  | RunCompleted
  | RunFailed
  | RunCancelled
  | DoomLoopDetected
  | CompactionCircuitOpened
  | Annotation;

export type AgentEventType = AgentEvent['type'];

interface EventBase {
  /** The run this event belongs to. */
  readonly runId: string;
  /** When the runtime emitted the event. */
  readonly time: HrTime;
  /**
   * The runtime sent no time: `time` is when the bridge read the event. Its run's durations are
   * then not recorded in latency histograms (its spans keep the times).
   */
  readonly timeFromArrival?: true | undefined;
}

export interface RunStarted extends EventBase {
  readonly type: 'RunStarted';
  readonly sessionId?: string | undefined;
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  /**
   * The run's own agent (a sub-agent's name), instead of the sink's `agentName`: its span is
   * `invoke_agent {agentName}` and its metrics carry it.
   */
  readonly agentName?: string | undefined;
  /**
   * The run that spawned this one (a sub-agent): its root span becomes a child of the parent's
   * span, in the parent's trace, wherever each run is processed (docs/telemetry-contract.md,
   * "Sub-agents"). The parent is named by its run id in the same dialect.
   */
  readonly parentRunId?: string | undefined;
  /**
   * The top run of a tree of sub-agents, where the parent is itself a sub-agent: the trace is the
   * top run's, so a run nested deeper lands in it even where its parent is not open in the same
   * process (another partition, another instance). Absent: the parent is the top run.
   */
  readonly rootRunId?: string | undefined;
  /** The parent's tool call that spawned this run: the root span's parent is that `execute_tool`. */
  readonly parentToolCallId?: string | undefined;
}
export interface ContextBuilt extends EventBase {
  readonly type: 'ContextBuilt';
  readonly messageCount: number;
}
export interface ModelStarted extends EventBase {
  readonly type: 'ModelStarted';
  /** 1-based. */
  readonly iteration: number;
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
}
export interface TextDelta extends EventBase {
  readonly type: 'TextDelta';
  readonly delta: string;
}
export interface ToolCallStarted extends EventBase {
  readonly type: 'ToolCallStarted';
  readonly callId: string;
  readonly toolName: string;
}
export interface ToolCallDelta extends EventBase {
  readonly type: 'ToolCallDelta';
  readonly callId: string;
  readonly delta: string;
}
export interface ToolCallCompleted extends EventBase {
  readonly type: 'ToolCallCompleted';
  readonly callId: string;
  readonly toolName: string;
  /** Parsed JSON arguments. */
  readonly arguments: unknown;
}
export interface ToolExecutionStarted extends EventBase {
  readonly type: 'ToolExecutionStarted';
  readonly callId: string;
  readonly toolName: string;
}
export type ToolResult =
  | { readonly ok: true; readonly output: unknown }
  | {
      readonly ok: false;
      readonly error: string;
      /**
       * The error is the tool's own output (oxi, agent-sdk, crabtalk report a failed tool by its
       * result), so it is content: it leaves the process only with content capture on.
       */
      readonly isOutput?: boolean;
    };
export interface ToolExecutionFinished extends EventBase {
  readonly type: 'ToolExecutionFinished';
  readonly callId: string;
  readonly toolName: string;
  readonly result: ToolResult;
  readonly durationMs?: number | undefined;
}
export interface AssistantMessageCommitted extends EventBase {
  readonly type: 'AssistantMessageCommitted';
  readonly messageId?: string | undefined;
  /** The model call it ends; default: the current one. */
  readonly iteration?: number | undefined;
  /** Facts the runtime reports only with the message (oxi, crabtalk). */
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly finishReason?: string | undefined;
}
export interface ToolMessageCommitted extends EventBase {
  readonly type: 'ToolMessageCommitted';
  readonly messageId?: string | undefined;
}
export interface TokenUsage {
  readonly inputTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
  readonly cacheReadInputTokens?: number | undefined;
  readonly cacheCreationInputTokens?: number | undefined;
  /** Output tokens spent on reasoning (part of `outputTokens`). */
  readonly reasoningOutputTokens?: number | undefined;
}
export interface UsageRecorded extends EventBase {
  readonly type: 'UsageRecorded';
  readonly usage: TokenUsage;
  /** The model call the usage belongs to; default: the current (or latest) one. */
  readonly iteration?: number | undefined;
}
export interface RunCompleted extends EventBase {
  readonly type: 'RunCompleted';
  readonly finishReason?: string | undefined;
  readonly iterations?: number | undefined;
}
export interface RunFailed extends EventBase {
  readonly type: 'RunFailed';
  readonly error: string;
}
export interface RunCancelled extends EventBase {
  readonly type: 'RunCancelled';
}
export interface DoomLoopDetected extends EventBase {
  readonly type: 'DoomLoopDetected';
  readonly description: string;
}
export interface CompactionCircuitOpened extends EventBase {
  readonly type: 'CompactionCircuitOpened';
  readonly consecutiveFailures: number;
}

export type AnnotationValue = string | number | boolean | readonly string[];

/**
 * A runtime-specific fact (retries, fallbacks, tool tiers, compaction sizes, cost) for a span of
 * the run: attributes in the runtime's own namespace (`oxi.*`, `agent_sdk.*`, `crabtalk.*`), or,
 * with `event`, a span event. String values are scrubbed before they leave the process.
 */
export interface Annotation extends EventBase {
  readonly type: 'Annotation';
  readonly target: 'run' | 'iteration' | 'model_call' | 'tool';
  /** For `tool`: the tool call; falls back to the run span when that tool span is not open. */
  readonly callId?: string | undefined;
  /** Span event name; absent: the attributes are set on the span. */
  readonly event?: string | undefined;
  readonly attributes: Readonly<Record<string, AnnotationValue>>;
}

/** The events that end a run. */
export type TerminalEvent = RunCompleted | RunFailed | RunCancelled;

export function isTerminal(event: AgentEvent): event is TerminalEvent {
  return (
    event.type === 'RunCompleted' || event.type === 'RunFailed' || event.type === 'RunCancelled'
  );
}
