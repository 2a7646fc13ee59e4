import type { HrTime } from '../../events/hr-time.js';
import type { AgentEvent, AnnotationValue, TokenUsage } from '../../events/agent-event.js';
import { DEFAULT_MAX_JSON_DEPTH, jsonDeeperThan } from '../shared/json-depth.js';
import { ScopedRuns } from '../shared/scoped-runs.js';

/** A tool call as crabtalk announces it (the daemon feed carries no call ids). */
export interface CrabtalkToolCall {
  readonly id?: string | undefined;
  /** Position in the model's tool-call list. */
  readonly index?: number | undefined;
  readonly name: string;
  /** Raw JSON text. */
  readonly arguments: string;
}

/** One step of `Done(AgentResponse)`: the model call's usage and finish reason. */
export interface CrabtalkStep {
  readonly usage?: TokenUsage | undefined;
  readonly finishReason?: string | undefined;
}

export interface CrabtalkDone {
  readonly steps?: readonly CrabtalkStep[];
  readonly model?: string | undefined;
  /** `text_response`, `max_iterations`, `no_action`, `max_tokens`, `cancelled` or `error`. */
  readonly stopReason?: string | undefined;
  readonly error?: string | undefined;
  readonly iterations?: number | undefined;
}

/**
 * One crabtalk conversation (a JSON stream, or an (agent, sender) pair of the daemon feed): a run
 * starts at its first event and ends at Done; a model iteration ends at ToolCallsComplete.
 */
export class CrabtalkConversation {
  private readonly runs: ScopedRuns;
  private readonly toolNames = new Map<string, string>();
  private pending: { id: string; name: string }[] = [];

  constructor(
    private readonly conversationId?: string,
    private readonly runAttributes: Readonly<Record<string, AnnotationValue>> = {},
    /** Deepest JSON nesting parsed in JSON-string tool arguments (deeper stays text). */
    private readonly maxJsonDepth: number = DEFAULT_MAX_JSON_DEPTH,
  ) {
    this.runs = new ScopedRuns('crabtalk', conversationId);
  }

  /** The input being decoded, with the daemon's timestamp when it has one (see `ScopedRuns`). */
  see(input: unknown, stamped?: HrTime): void {
    this.runs.see(input, stamped);
  }

  /** Text, thinking or tool output: the run and iteration are opened as needed. */
  output(t: HrTime): AgentEvent[] {
    const events = this.openRun(t);
    events.push(...this.runs.ensureIteration(t));
    return events;
  }

  /** The run, opened when none is (without a model call: a note or Done may come first). */
  private openRun(t: HrTime): AgentEvent[] {
    const events: AgentEvent[] = [];
    if (!this.runs.open) {
      const runId = this.runs.start();
      events.push({ type: 'RunStarted', runId, time: t, sessionId: this.conversationId });
      if (Object.keys(this.runAttributes).length > 0) {
        events.push({
          type: 'Annotation',
          runId,
          time: t,
          target: 'run',
          attributes: this.runAttributes,
        });
      }
    }
    return events;
  }

  textDelta(t: HrTime, delta: string): AgentEvent[] {
    return [...this.output(t), { type: 'TextDelta', runId: this.runs.current(), time: t, delta }];
  }

  toolCalls(t: HrTime, calls: readonly CrabtalkToolCall[]): AgentEvent[] {
    const events = this.output(t);
    const runId = this.runs.current();
    calls.forEach((call, k) => {
      // Providers without call ids (an empty id) are told apart by the call's index.
      const id =
        call.id === undefined || call.id === ''
          ? `${call.name}@${this.runs.iteration}.${(call.index ?? k) + 1}`
          : call.id;
      this.toolNames.set(id, call.name);
      this.pending.push({ id, name: call.name });
      events.push(
        {
          type: 'ToolCallCompleted',
          runId,
          time: t,
          callId: id,
          toolName: call.name,
          arguments: parseArguments(call.arguments, this.maxJsonDepth),
        },
        { type: 'ToolExecutionStarted', runId, time: t, callId: id, toolName: call.name },
      );
    });
    return events;
  }

  toolResult(
    t: HrTime,
    result: {
      callId?: string | undefined;
      output: string;
      isError: boolean;
      durationMs?: number | undefined;
    },
  ): AgentEvent[] {
    const events = this.runs.open ? [] : this.output(t);
    const known = result.callId === undefined || result.callId === '' ? undefined : result.callId;
    const index = known === undefined ? 0 : this.pending.findIndex((p) => p.id === known);
    const match = index >= 0 ? this.pending.splice(index, 1)[0] : undefined;
    const callId = known ?? match?.id ?? `unmatched@${this.runs.iteration}`;
    const toolName = this.toolNames.get(callId) ?? match?.name ?? 'unknown';
    events.push({
      type: 'ToolExecutionFinished',
      runId: this.runs.current(),
      time: t,
      callId,
      toolName,
      result: result.isError
        ? { ok: false, error: result.output, isOutput: true }
        : { ok: true, output: result.output },
      durationMs: result.durationMs,
    });
    return events;
  }

  /** ToolCallsComplete: the next output belongs to a new model iteration. */
  toolsComplete(): AgentEvent[] {
    this.runs.iterationOpen = false;
    return [];
  }

  note(t: HrTime, event: string, attributes: Record<string, AnnotationValue>): AgentEvent[] {
    const events = this.openRun(t);
    events.push({
      type: 'Annotation',
      runId: this.runs.current(),
      time: t,
      target: 'run',
      event,
      attributes,
    });
    return events;
  }

  done(t: HrTime, done: CrabtalkDone): AgentEvent[] {
    const events = this.openRun(t);
    const runId = this.runs.current();
    const steps = done.steps ?? [];
    steps.forEach((step, i) => {
      events.push({
        type: 'AssistantMessageCommitted',
        runId,
        time: t,
        iteration: i + 1,
        model: done.model,
        finishReason: step.finishReason,
      });
      if (step.usage !== undefined)
        events.push({ type: 'UsageRecorded', runId, time: t, iteration: i + 1, usage: step.usage });
    });
    // A model call that has no step (the stream failed, or brought nothing: run_stream ends the
    // run without recording it) still ran on Done's model.
    for (let i = steps.length + 1; i <= this.runs.iteration; i += 1)
      events.push({
        type: 'AssistantMessageCommitted',
        runId,
        time: t,
        iteration: i,
        model: done.model,
      });
    if (steps.length === 0 && this.runs.iteration === 0 && done.model !== undefined) {
      events.push({ type: 'AssistantMessageCommitted', runId, time: t, model: done.model });
    }
    if (done.stopReason !== undefined) {
      events.push({
        type: 'Annotation',
        runId,
        time: t,
        target: 'run',
        attributes: { 'crabtalk.stop_reason': done.stopReason },
      });
    }
    // Done counts steps; a call that has none (see above) still ran.
    const iterations = Math.max(done.iterations ?? 0, this.runs.iteration, steps.length);
    if (done.stopReason === 'error')
      events.push({
        type: 'RunFailed',
        runId,
        time: t,
        error: done.error ?? 'the agent stopped with an error',
      });
    else if (done.stopReason === 'max_iterations')
      // The loop ran out of iterations while the model still called tools.
      events.push({ type: 'RunFailed', runId, time: t, error: 'max iterations reached' });
    else if (done.stopReason === 'cancelled') events.push({ type: 'RunCancelled', runId, time: t });
    else
      events.push({
        type: 'RunCompleted',
        runId,
        time: t,
        finishReason: steps.at(-1)?.finishReason,
        iterations,
      });
    this.runs.end();
    this.toolNames.clear();
    this.pending = [];
    return events;
  }
}

/** JSON-string arguments, parsed; kept as text when they are not JSON or nest too deep. */
function parseArguments(text: string, maxJsonDepth: number): unknown {
  if (jsonDeeperThan(text, maxJsonDepth)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
