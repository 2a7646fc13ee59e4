import type { HrTime } from '@opentelemetry/api';
import type { AgentEvent, AnnotationValue } from '../events/agent-event.js';
import type { Dialect, ParseResult, StreamContext, Verdict } from './parse-result.js';
import { accepted, ignoredVariant, isRecord, rejectedSchema } from './parse-result.js';
import { endAssistantMessage } from './oxi-message.js';
import { toRunNote } from './oxi-notes.js';
import { ScopedRuns } from './scoped-runs.js';
import { NO_OPS, OXI_TYPES, SCHEMAS, SHARED, toFinishReason } from './oxi-schemas.js';
import type { Payload, Schemas } from './oxi-schemas.js';
import { toRejection } from './zod-issue.js';

// oxi (oxi-agent / oxi-ai): `{"type":"<camelCase>", …snake_case fields}`, both the AgentLoop and
// the legacy run_with_channel vocabularies. No run ids and no timestamps: runs are scoped to
// the stream and timed by arrival.

class OxiDecoder {
  private readonly runs: ScopedRuns;
  private readonly toolNames = new Map<string, string>();
  private sawTextChunk = false;

  constructor(private readonly stream: StreamContext) {
    this.runs = new ScopedRuns(stream.scope);
  }

  decode(value: unknown): ParseResult {
    const type = isRecord(value) && typeof value['type'] === 'string' ? value['type'] : undefined;
    if (type === undefined) return rejectedSchema('type', 'expected a string "type" field');
    if (NO_OPS.has(type)) {
      if (type === 'steeringMessage' || type === 'followUpMessage') {
        const event = type === 'steeringMessage' ? 'oxi.steering_message' : 'oxi.follow_up_message';
        return accepted(type, this.runs.annotation(this.stream.arrival(), 'run', event, {}));
      }
      return accepted(type);
    }
    if (!Object.hasOwn(SCHEMAS, type)) return ignoredVariant('oxi', type);
    const key = type as keyof Schemas;
    const parsed = SCHEMAS[key].safeParse(value);
    if (!parsed.success) return toRejection(type, parsed.error, type);
    return accepted(type, ...this.map(key, parsed.data, this.stream.arrival()));
  }

  private map<K extends keyof Schemas>(type: K, payload: Payload<K>, t: HrTime): AgentEvent[] {
    const note = toRunNote(type, payload);
    if (note !== undefined) return [this.runs.annotation(t, 'run', note.event, note.attributes)];
    switch (type) {
      case 'agentStart':
      case 'start': {
        const runId = this.runs.start();
        this.sawTextChunk = false;
        return [
          {
            type: 'RunStarted',
            runId,
            time: t,
            sessionId: (payload as Payload<'agentStart'>).session_id ?? undefined,
          },
        ];
      }
      case 'turnStart':
        return this.runs.startIteration(t, (payload as Payload<'turnStart'>).turn_number);
      case 'iteration':
        return this.runs.startIteration(t, (payload as Payload<'iteration'>).number);
      case 'messageStart': {
        const message = (payload as Payload<'messageStart'>).message;
        return message.role === 'assistant' ? this.runs.ensureIteration(t) : [];
      }
      case 'messageUpdate': {
        const delta = (payload as Payload<'messageUpdate'>).delta;
        if (delta === null || delta === undefined || delta === '' || this.sawTextChunk) return [];
        return [
          ...this.runs.ensureIteration(t),
          { type: 'TextDelta', runId: this.runs.current(), time: t, delta },
        ];
      }
      case 'textChunk':
        this.sawTextChunk = true;
        return [
          ...this.runs.ensureIteration(t),
          {
            type: 'TextDelta',
            runId: this.runs.current(),
            time: t,
            delta: (payload as Payload<'textChunk'>).text,
          },
        ];
      case 'messageEnd':
        return endAssistantMessage(
          this.runs,
          this.toolNames,
          (payload as Payload<'messageEnd'>).message,
          t,
        );
      case 'toolCall': {
        const call = (payload as Payload<'toolCall'>).tool_call;
        this.toolNames.set(call.id, call.name);
        return [
          ...this.runs.ensureIteration(t),
          {
            type: 'ToolCallCompleted',
            runId: this.runs.current(),
            time: t,
            callId: call.id,
            toolName: call.name,
            arguments: call.arguments,
          },
        ];
      }
      case 'toolExecutionStart':
      case 'toolStart': {
        const start = payload as Payload<'toolExecutionStart'>;
        this.toolNames.set(start.tool_call_id, start.tool_name);
        const events: AgentEvent[] = [
          {
            type: 'ToolExecutionStarted',
            runId: this.runs.current(),
            time: t,
            callId: start.tool_call_id,
            toolName: start.tool_name,
          },
        ];
        const attributes: Record<string, AnnotationValue> = {};
        if (typeof start.intent === 'string') attributes['oxi.tool.intent'] = start.intent;
        if (start.context?.kind !== undefined)
          attributes['oxi.tool.context.kind'] = start.context.kind;
        if (Object.keys(attributes).length > 0)
          events.push(this.runs.annotation(t, 'tool', undefined, attributes, start.tool_call_id));
        return events;
      }
      case 'toolExecutionEnd': {
        const end = payload as Payload<'toolExecutionEnd'>;
        const failed = end.is_error === true || end.result?.status === 'error';
        return [this.finishTool(t, end.tool_call_id, end.tool_name, failed, end.result?.content)];
      }
      case 'toolComplete': {
        const { result } = payload as Payload<'toolComplete'>;
        return [
          this.finishTool(
            t,
            result.tool_call_id,
            undefined,
            result.status === 'error',
            result.content,
          ),
        ];
      }
      case 'toolError': {
        const error = payload as Payload<'toolError'>;
        return [this.finishTool(t, error.tool_call_id, undefined, true, error.error)];
      }
      case 'usage': {
        const usage = payload as Payload<'usage'>;
        return [
          {
            type: 'UsageRecorded',
            runId: this.runs.current(),
            time: t,
            usage: {
              inputTokens: usage.input_tokens ?? undefined,
              outputTokens: usage.output_tokens ?? undefined,
            },
          },
        ];
      }
      case 'agentEnd':
      case 'complete':
        return this.end(
          t,
          (payload as Payload<'agentEnd'>).stop_reason,
          (payload as Payload<'agentEnd'>).messages,
        );
      case 'error':
        return this.terminal({
          type: 'RunFailed',
          runId: this.runs.current(),
          time: t,
          error: (payload as Payload<'error'>).message,
        });
      case 'cancelled':
        return this.terminal({ type: 'RunCancelled', runId: this.runs.current(), time: t });
      case 'compaction':
      case 'retry':
      case 'autoRetryStart':
      case 'autoRetryEnd':
      case 'fallback':
      case 'ttsrInterrupt':
        return []; // run notes, mapped by toRunNote above
    }
  }

  private finishTool(
    t: HrTime,
    callId: string,
    name: string | undefined,
    failed: boolean,
    content: unknown,
  ): AgentEvent {
    const toolName = name ?? this.toolNames.get(callId) ?? 'unknown';
    const text = typeof content === 'string' ? content : JSON.stringify(content ?? null);
    return {
      type: 'ToolExecutionFinished',
      runId: this.runs.current(),
      time: t,
      callId,
      toolName,
      result: failed ? { ok: false, error: text } : { ok: true, output: content },
    };
  }

  private end(
    t: HrTime,
    stop: string | null | undefined,
    messages: readonly unknown[] | null | undefined,
  ): AgentEvent[] {
    const reason = toFinishReason(stop);
    const runId = this.runs.current();
    if (reason === 'aborted') return this.terminal({ type: 'RunCancelled', runId, time: t });
    if (reason === 'error') {
      const last = [...(messages ?? [])]
        .reverse()
        .find((m) => isRecord(m) && m['role'] === 'assistant');
      const text =
        isRecord(last) && typeof last['error_message'] === 'string'
          ? last['error_message']
          : 'the agent stopped with an error';
      return this.terminal({ type: 'RunFailed', runId, time: t, error: text });
    }
    return this.terminal({
      type: 'RunCompleted',
      runId,
      time: t,
      finishReason: reason,
      iterations: this.runs.iteration,
    });
  }

  private terminal(event: AgentEvent): AgentEvent[] {
    this.runs.end();
    this.toolNames.clear();
    return [event];
  }
}

function classify(value: unknown): Verdict {
  if (!isRecord(value) || typeof value['type'] !== 'string') return 'no';
  const type = value['type'];
  if (SHARED.has(type)) {
    if (type === 'start') return 'prompt' in value ? 'yes' : 'thread_id' in value ? 'no' : 'maybe';
    if (type === 'thinking')
      return Object.keys(value).length === 1 ? 'yes' : 'text' in value ? 'no' : 'maybe';
    return 'recoverable' in value ? 'no' : 'session_id' in value ? 'yes' : 'maybe';
  }
  if (OXI_TYPES.has(type)) return 'yes';
  return /^[a-z]+[A-Z][A-Za-z]*$/.test(type) ? 'maybe' : 'no';
}

/** oxi: camelCase `type`, snake_case fields, runs scoped to the stream. */
export const oxi: Dialect = {
  name: 'oxi',
  classify,
  createDecoder: (stream) => new OxiDecoder(stream),
};
