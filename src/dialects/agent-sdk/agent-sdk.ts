import type { HrTime } from '../../events/hr-time.js';
import type * as z from 'zod';
import { CHECKS, ENVELOPE, NO_OPS, RETRY_NOTICE, SCHEMAS, SDK_TYPES } from './agent-sdk-schemas.js';
import type { Payload, Schemas } from './agent-sdk-schemas.js';
import type { AgentEvent } from '../../events/agent-event.js';
import { parseRfc3339 } from '../../events/hr-time.js';
import type { Dialect, ParseResult, StreamContext, Verdict } from '../shared/parse-result.js';
import { accepted, ignoredVariant, isRecord, rejectedSchema } from '../shared/parse-result.js';
import { ScopedRuns } from '../shared/scoped-runs.js';
import { askUser, endTool, startTool } from './agent-sdk-tools.js';
import { Subagents } from './agent-sdk-subagents.js';
import { defined } from '../shared/annotation-values.js';
import { toRejection } from '../shared/zod-issue.js';
import { readWith } from '../shared/schema-check.js';

// agent-sdk v0.1–v0.3 (and the v0.5+ envelope): `{"type":"<snake_case>", …}`. No run ids;
// `thread_id` is the conversation. As the loop (bipa-app/agent-sdk v0.3.0, src/agent_loop.rs
// `run_loop` and `AgentLoop::run`) emits them: every turn begins with `start{turn}` (turn 1
// begins a run); `turn_complete` comes only for turns that called tools, so the last turn's usage
// is only in `done.total_usage`; `Maximum turns`, `Rate limited after N retries` and `Server error
// after N retries` (recoverable) and `Invalid request` (not recoverable) break out of the loop and
// are followed by `done`: one run, failed; an error the loop returns (`?`) is sent as a
// non-recoverable `error` with no `done`. Confirmation and PIN tools get no `tool_call_end`.

/** Errors after which the loop breaks out and sends `done`: the run failed. */
const LOOP_BREAK = /^(?:Maximum turns|Rate limited after|Server error after|Invalid request)/;

interface Usage {
  input: number;
  output: number;
}

class AgentSdkDecoder {
  private readonly runs: ScopedRuns;
  /** The error that ends the current run at its `done`. */
  private failure: string | undefined;
  /** Usage told by `turn_complete` in the current run (`done` carries the total). */
  private told: Usage = { input: 0, output: 0 };
  /** A run that failed without `done` yet: a `done` before the next `start` still belongs to it. */
  private failedRun: { runId: string; iteration: number; told: Usage } | undefined;

  constructor(private readonly stream: StreamContext) {
    this.runs = new ScopedRuns('agent-sdk');
  }

  /** Sub-agents of the current run (each a run of its own). */
  private readonly subagents = new Subagents();

  decode(value: unknown): ParseResult {
    const type = isRecord(value) && typeof value['type'] === 'string' ? value['type'] : undefined;
    if (type === undefined || !isRecord(value))
      return rejectedSchema('type', 'expected a string "type" field');
    let t: HrTime;
    if (typeof value['timestamp'] === 'string') {
      const parsed = parseRfc3339(value['timestamp']);
      if (parsed === undefined)
        return rejectedSchema(
          `${type}.timestamp`,
          `expected an RFC 3339 timestamp, got "${value['timestamp'].slice(0, 40)}"`,
          type,
        );
      t = parsed;
      this.runs.see(value, t);
    } else {
      t = this.stream.arrival();
      this.runs.see(value);
    }
    if (NO_OPS.has(type)) return accepted(type);
    if (!Object.hasOwn(SCHEMAS, type)) return ignoredVariant('agent-sdk', type);
    const key = type as keyof Schemas;
    const parsed = readWith(SCHEMAS[key] as z.ZodType<Payload<typeof key>>, CHECKS[key], value);
    if (!parsed.success) return toRejection(type, parsed.error, type);
    return accepted(type, ...this.map(key, parsed.data, t));
  }

  private map<K extends keyof Schemas>(type: K, payload: Payload<K>, t: HrTime): AgentEvent[] {
    switch (type) {
      case 'start': {
        const start = payload as Payload<'start'>;
        const turn = start.turn ?? 1;
        // A later turn of the open run; turn 1 (or a turn not after the last one) begins a run.
        if (this.runs.open && turn > this.runs.iteration) return this.runs.startIteration(t, turn);
        // Sub-agents of a run that never said `done` end where the next run begins.
        const leftOver = this.subagents.parentEnded(t, true);
        const runId = this.runs.start(start.thread_id ?? undefined);
        this.failure = undefined;
        this.failedRun = undefined;
        this.told = { input: 0, output: 0 };
        return [
          ...leftOver,
          { type: 'RunStarted', runId, time: t, sessionId: start.thread_id ?? undefined },
          ...this.runs.startIteration(t, turn),
        ];
      }
      case 'text_delta':
        return this.runs.textDelta(t, (payload as Payload<'text_delta'>).delta);
      case 'text': {
        const text = (payload as Payload<'text'>).text;
        const retry = RETRY_NOTICE.exec(text);
        if (retry !== null) {
          return [
            this.runs.annotation(t, 'run', 'agent_sdk.retry', {
              'agent_sdk.retry.reason': retry[1]!.toLowerCase().replace(' ', '_'),
              'agent_sdk.retry.delay_s': Number(retry[2]),
              'agent_sdk.retry.attempt': Number(retry[3]),
              'agent_sdk.retry.max_attempts': Number(retry[4]),
            }),
          ];
        }
        return this.runs.textDelta(t, text);
      }
      case 'tool_call_start': {
        const call = payload as Payload<'tool_call_start'>;
        const events = startTool(this.runs, call, t);
        this.subagents.callStarted(call.id, call.name);
        return events;
      }
      case 'tool_requires_confirmation':
      case 'tool_requires_pin':
        return askUser(
          this.runs,
          type,
          payload as Payload<'tool_requires_confirmation' | 'tool_requires_pin'>,
          t,
        );
      case 'tool_call_end': {
        const end = payload as Payload<'tool_call_end'>;
        return [
          ...this.subagents.callEnded(end.id, end.result.success, t),
          ...endTool(this.runs, end, t),
        ];
      }
      case 'turn_complete': {
        const turn = payload as Payload<'turn_complete'>;
        const runId = this.runs.current();
        const events: AgentEvent[] = [...this.runs.startIteration(t, turn.turn)];
        if (turn.usage !== null && turn.usage !== undefined) {
          this.told.input += turn.usage.input_tokens ?? 0;
          this.told.output += turn.usage.output_tokens ?? 0;
          events.push({
            type: 'UsageRecorded',
            runId,
            time: t,
            iteration: turn.turn,
            usage: {
              inputTokens: turn.usage.input_tokens ?? undefined,
              outputTokens: turn.usage.output_tokens ?? undefined,
            },
          });
        }
        events.push({ type: 'AssistantMessageCommitted', runId, time: t, iteration: turn.turn });
        this.runs.iterationOpen = false;
        return events;
      }
      case 'done': {
        const done = payload as Payload<'done'>;
        const failed = this.failedRun;
        if (failed !== undefined && !this.runs.open) {
          // The `done` after `Invalid request`: the run already ended; its usage and duration still count.
          this.failedRun = undefined;
          return doneFacts(failed.runId, t, done, failed.iteration, failed.told);
        }
        const runId = this.runs.current();
        const iterations = this.runs.iteration > 0 ? this.runs.iteration : done.total_turns;
        const events = [
          ...this.subagents.parentEnded(t, this.failure === undefined),
          ...(this.runs.iteration === 0 ? this.runs.startIteration(t) : []),
          ...doneFacts(runId, t, done, this.runs.iteration, this.told),
        ];
        if (this.failure === undefined) {
          // The last turn answered without tools: its model call ends with the run.
          if (this.runs.iterationOpen)
            events.push({
              type: 'AssistantMessageCommitted',
              runId,
              time: t,
              iteration: this.runs.iteration,
            });
          events.push({
            type: 'RunCompleted',
            runId,
            time: t,
            iterations: iterations ?? undefined,
          });
        } else {
          events.push({ type: 'RunFailed', runId, time: t, error: this.failure });
        }
        this.failure = undefined;
        this.runs.end();
        return events;
      }
      case 'error': {
        const error = payload as Payload<'error'>;
        if (error.recoverable) {
          // The loop breaks out after these; the run fails at the `done` that follows.
          if (LOOP_BREAK.test(error.message)) this.failure = error.message;
          return [
            this.runs.annotation(t, 'run', 'agent_sdk.error', {
              'agent_sdk.error.message': error.message,
              'agent_sdk.error.recoverable': true,
            }),
          ];
        }
        // Not recoverable: the run is over now (an error the loop returned has no `done`; after
        // `Invalid request` a `done` follows, and brings the run's usage and duration).
        const runId = this.runs.current();
        this.failedRun = { runId, iteration: this.runs.iteration, told: this.told };
        this.failure = undefined;
        this.runs.end();
        return [
          ...this.subagents.parentEnded(t, false),
          { type: 'RunFailed', runId, time: t, error: error.message },
        ];
      }
      case 'context_compacted': {
        const c = payload as Payload<'context_compacted'>;
        return [
          this.runs.annotation(
            t,
            'run',
            'agent_sdk.context_compacted',
            defined({
              'agent_sdk.compaction.original_count': c.original_count,
              'agent_sdk.compaction.new_count': c.new_count,
              'agent_sdk.compaction.original_tokens': c.original_tokens,
              'agent_sdk.compaction.new_tokens': c.new_tokens,
            }),
          ),
        ];
      }
      case 'subagent_progress':
        // A run of its own, under the spawning call's span (agent-sdk-subagents.ts).
        return this.subagents.progress(this.runs.current(), payload, t);
      case 'refusal':
        return [this.runs.annotation(t, 'model_call', 'agent_sdk.refusal', {})];
    }
    return [];
  }
}

/**
 * What `done` adds to a run: the usage its last turn had (the total less what `turn_complete`
 * told, as the last turn, without tools, has no `turn_complete`) and the loop's own duration.
 */
function doneFacts(
  runId: string,
  t: HrTime,
  done: Payload<'done'>,
  iteration: number,
  told: Usage,
): AgentEvent[] {
  const events: AgentEvent[] = [];
  const total = done.total_usage;
  if (total !== null && total !== undefined) {
    const input = Math.max(0, (total.input_tokens ?? 0) - told.input);
    const output = Math.max(0, (total.output_tokens ?? 0) - told.output);
    if ((input > 0 || output > 0) && iteration > 0)
      events.push({
        type: 'UsageRecorded',
        runId,
        time: t,
        iteration,
        usage: { inputTokens: input, outputTokens: output },
      });
  }
  if (done.duration !== null && done.duration !== undefined) {
    events.push({
      type: 'Annotation',
      runId,
      time: t,
      target: 'run',
      attributes: {
        'agent_sdk.run.duration': (done.duration.secs * 1e9 + done.duration.nanos) / 1e9,
      },
    });
  }
  return events;
}

function classify(value: unknown): Verdict {
  if (!isRecord(value) || typeof value['type'] !== 'string') return 'no';
  const type = value['type'];
  if (ENVELOPE.some((k) => k in value)) return 'yes';
  if (type === 'start')
    return 'thread_id' in value || 'turn' in value ? 'yes' : 'prompt' in value ? 'no' : 'maybe';
  if (type === 'thinking')
    return 'text' in value ? 'yes' : Object.keys(value).length === 1 ? 'no' : 'maybe';
  if (type === 'error') return 'recoverable' in value ? 'yes' : 'no';
  if (SDK_TYPES.has(type)) return 'yes';
  return /^[a-z]+(?:_[a-z0-9]+)+$/.test(type) ? 'maybe' : 'no';
}

/** agent-sdk: snake_case `type` and fields, runs scoped to the stream; envelope timestamps when present. */
export const agentSdk: Dialect = {
  name: 'agent-sdk',
  classify,
  createDecoder: (stream) => new AgentSdkDecoder(stream),
};
