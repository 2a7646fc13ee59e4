import type { HrTime } from '@opentelemetry/api';
import { ENVELOPE, NO_OPS, RETRY_NOTICE, SCHEMAS, SDK_TYPES } from './agent-sdk-schemas.js';
import type { Payload, Schemas } from './agent-sdk-schemas.js';
import type { AgentEvent } from '../events/agent-event.js';
import { parseRfc3339 } from '../events/hr-time.js';
import type { Dialect, ParseResult, StreamContext, Verdict } from './parse-result.js';
import { accepted, ignoredVariant, isRecord, rejectedSchema } from './parse-result.js';
import { ScopedRuns } from './scoped-runs.js';
import { defined } from './annotation-values.js';
import { toRejection } from './zod-issue.js';

// agent-sdk v0.1–v0.3 (and the v0.5+ envelope): `{"type":"<snake_case>", …}`. No run ids; a run is
// `start` … `done` or a non-recoverable `error` on one stream, `thread_id` is the conversation.

class AgentSdkDecoder {
  private readonly runs: ScopedRuns;

  constructor(private readonly stream: StreamContext) {
    this.runs = new ScopedRuns(stream.scope);
  }

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
    } else {
      t = this.stream.arrival();
    }
    if (NO_OPS.has(type)) return accepted(type);
    if (!Object.hasOwn(SCHEMAS, type)) return ignoredVariant('agent-sdk', type);
    const key = type as keyof Schemas;
    const parsed = SCHEMAS[key].safeParse(value);
    if (!parsed.success) return toRejection(type, parsed.error, type);
    return accepted(type, ...this.map(key, parsed.data, t));
  }

  private map<K extends keyof Schemas>(type: K, payload: Payload<K>, t: HrTime): AgentEvent[] {
    switch (type) {
      case 'start': {
        const start = payload as Payload<'start'>;
        const runId = this.runs.start();
        return [
          { type: 'RunStarted', runId, time: t, sessionId: start.thread_id ?? undefined },
          ...this.runs.startIteration(t, start.turn ?? 1),
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
        const runId = this.runs.current();
        const events: AgentEvent[] = [
          ...this.runs.ensureIteration(t),
          {
            type: 'ToolCallCompleted',
            runId,
            time: t,
            callId: call.id,
            toolName: call.name,
            arguments: call.input,
          },
          { type: 'ToolExecutionStarted', runId, time: t, callId: call.id, toolName: call.name },
        ];
        if (typeof call.tier === 'string')
          events.push(
            this.runs.annotation(
              t,
              'tool',
              undefined,
              { 'agent_sdk.tool.tier': call.tier },
              call.id,
            ),
          );
        return events;
      }
      case 'tool_requires_confirmation':
      case 'tool_requires_pin': {
        const ask = payload as Payload<'tool_requires_confirmation'>;
        const event =
          type === 'tool_requires_pin'
            ? 'agent_sdk.tool.pin_required'
            : 'agent_sdk.tool.confirmation_required';
        return [
          this.runs.annotation(
            t,
            'tool',
            event,
            defined({
              'gen_ai.tool.name': ask.name,
              'agent_sdk.tool.description': ask.description,
            }),
            ask.id,
          ),
        ];
      }
      case 'tool_call_end': {
        const end = payload as Payload<'tool_call_end'>;
        const output = end.result.output;
        const text = typeof output === 'string' ? output : JSON.stringify(output ?? null);
        return [
          {
            type: 'ToolExecutionFinished',
            runId: this.runs.current(),
            time: t,
            callId: end.id,
            toolName: end.name,
            result: end.result.success
              ? { ok: true, output: end.result.data ?? output }
              : { ok: false, error: text },
            durationMs: end.result.duration_ms ?? undefined,
          },
        ];
      }
      case 'turn_complete': {
        const turn = payload as Payload<'turn_complete'>;
        const runId = this.runs.current();
        const events: AgentEvent[] = [...this.runs.startIteration(t, turn.turn)];
        if (turn.usage !== null && turn.usage !== undefined) {
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
        const runId = this.runs.current();
        const events: AgentEvent[] = [];
        if (done.duration !== null && done.duration !== undefined) {
          events.push(
            this.runs.annotation(t, 'run', undefined, {
              'agent_sdk.run.duration': (done.duration.secs * 1e9 + done.duration.nanos) / 1e9,
            }),
          );
        }
        events.push({
          type: 'RunCompleted',
          runId,
          time: t,
          iterations: done.total_turns ?? this.runs.iteration,
        });
        this.runs.end();
        return events;
      }
      case 'error': {
        const error = payload as Payload<'error'>;
        if (error.recoverable)
          return [
            this.runs.annotation(t, 'run', 'agent_sdk.error', {
              'agent_sdk.error.message': error.message,
              'agent_sdk.error.recoverable': true,
            }),
          ];
        const runId = this.runs.current();
        this.runs.end();
        return [{ type: 'RunFailed', runId, time: t, error: error.message }];
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
      case 'subagent_progress': {
        const s = payload as Payload<'subagent_progress'>;
        return [
          this.runs.annotation(
            t,
            'run',
            'agent_sdk.subagent_progress',
            defined({
              'agent_sdk.subagent.name': s.subagent_name,
              'gen_ai.tool.name': s.tool_name,
              'agent_sdk.subagent.completed': s.completed,
              'agent_sdk.subagent.success': s.success,
              'agent_sdk.subagent.tool_count': s.tool_count,
              'agent_sdk.subagent.total_tokens': s.total_tokens,
            }),
          ),
        ];
      }
      case 'refusal':
        return [this.runs.annotation(t, 'model_call', 'agent_sdk.refusal', {})];
    }
    return [];
  }
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
