import type { HrTime } from '@opentelemetry/api';
import { z } from 'zod';
import type { AgentEvent, AnnotationValue } from '../events/agent-event.js';
import type { Dialect, ParseResult, StreamContext, Verdict } from './parse-result.js';
import { accepted, ignoredVariant, isRecord } from './parse-result.js';
import { ScopedRuns } from './scoped-runs.js';
import { toRejection } from './zod-issue.js';

// oxi (oxi-agent / oxi-ai): `{"type":"<camelCase>", …snake_case fields}`, both the AgentLoop and
// the legacy run_with_channel vocabularies. No run ids and no timestamps: runs are scoped to
// the stream and timed by arrival.

const Count = z.number().int().nonnegative();
const Usage = z.looseObject({
  input: Count.nullish(),
  output: Count.nullish(),
  cache_read: Count.nullish(),
  cache_write: Count.nullish(),
  cost: z.looseObject({}).catchall(z.number()).nullish(),
});
const Message = z.looseObject({
  role: z.string(),
  content: z.unknown(),
  provider: z.string().nullish(),
  model: z.string().nullish(),
  api: z.string().nullish(),
  usage: Usage.nullish(),
  stop_reason: z.string().nullish(),
  error_message: z.string().nullish(),
});
const ToolResult = z.looseObject({
  tool_call_id: z.string(),
  content: z.unknown(),
  status: z.string().nullish(),
});
const ToolCall = z.looseObject({ id: z.string(), name: z.string(), arguments: z.unknown() });
const CompactionEvent = z.union([
  z.looseObject({
    Triggered: z.looseObject({ context_tokens: Count.nullish(), iteration: Count.nullish() }),
  }),
  z.looseObject({ Started: z.looseObject({ message_count: Count.nullish() }) }),
  z.looseObject({
    Completed: z.looseObject({
      result: z.looseObject({ compacted_count: Count.nullish() }).nullish(),
      duration_ms: Count.nullish(),
    }),
  }),
  z.looseObject({ Skipped: z.looseObject({ reason: z.string().nullish() }) }),
  z.looseObject({ Failed: z.looseObject({ error: z.string().nullish() }) }),
]);

const SCHEMAS = {
  agentStart: z.looseObject({ session_id: z.string().nullish() }),
  start: z.looseObject({ prompt: z.unknown() }),
  turnStart: z.looseObject({ turn_number: Count }),
  iteration: z.looseObject({ number: Count }),
  messageStart: z.looseObject({ message: Message }),
  messageUpdate: z.looseObject({ message: Message.nullish(), delta: z.string().nullish() }),
  messageEnd: z.looseObject({ message: Message }),
  textChunk: z.looseObject({ text: z.string() }),
  toolCall: z.looseObject({ tool_call: ToolCall }),
  toolExecutionStart: z.looseObject({
    tool_call_id: z.string(),
    tool_name: z.string(),
    intent: z.string().nullish(),
    context: z.looseObject({ kind: z.string() }).nullish(),
  }),
  toolStart: z.looseObject({ tool_call_id: z.string(), tool_name: z.string() }),
  toolExecutionEnd: z.looseObject({
    tool_call_id: z.string(),
    tool_name: z.string(),
    result: ToolResult.nullish(),
    is_error: z.boolean().nullish(),
  }),
  toolComplete: z.looseObject({ result: ToolResult }),
  toolError: z.looseObject({ tool_call_id: z.string(), error: z.string() }),
  agentEnd: z.looseObject({
    messages: z.array(z.unknown()).nullish(),
    stop_reason: z.string().nullish(),
  }),
  complete: z.looseObject({ stop_reason: z.string().nullish() }),
  error: z.looseObject({ message: z.string() }),
  cancelled: z.looseObject({}),
  usage: z.looseObject({ input_tokens: Count.nullish(), output_tokens: Count.nullish() }),
  compaction: z.looseObject({ event: CompactionEvent }),
  retry: z.looseObject({
    attempt: Count.nullish(),
    max_retries: Count.nullish(),
    retry_after_secs: z.number().nullish(),
    reason: z.string().nullish(),
  }),
  autoRetryStart: z.looseObject({
    attempt: Count.nullish(),
    max_attempts: Count.nullish(),
    delay_ms: Count.nullish(),
    error_message: z.string().nullish(),
  }),
  autoRetryEnd: z.looseObject({
    success: z.boolean().nullish(),
    attempt: Count.nullish(),
    final_error: z.string().nullish(),
  }),
  fallback: z.looseObject({ from_model: z.string().nullish(), to_model: z.string().nullish() }),
  ttsrInterrupt: z.looseObject({ rule_name: z.string().nullish() }),
};

/** Accepted, nothing to map (streaming progress, thinking, turn bookkeeping). */
const NO_OPS = new Set([
  'thinking',
  'thinkingDelta',
  'thinkingEnd',
  'partialResponse',
  'toolCallDelta',
  'toolExecutionUpdate',
  'toolProgress',
  'turnEnd',
  'steeringMessage',
  'followUpMessage',
]);
const OXI_TYPES = new Set([...Object.keys(SCHEMAS), ...NO_OPS]);
/** `type` values agent-sdk uses too; the fields decide. */
const SHARED = new Set(['start', 'thinking', 'error']);

const FINISH_REASONS: Record<string, string> = {
  stop: 'stop',
  tooluse: 'tool_calls',
  length: 'length',
  error: 'error',
  aborted: 'aborted',
};
const toFinishReason = (stop: string | null | undefined) =>
  stop === null || stop === undefined ? undefined : (FINISH_REASONS[stop.toLowerCase()] ?? stop);

type Schemas = typeof SCHEMAS;
type Payload<K extends keyof Schemas> = z.output<Schemas[K]>;

class OxiDecoder {
  private readonly runs: ScopedRuns;
  private readonly toolNames = new Map<string, string>();
  private sawTextChunk = false;

  constructor(private readonly stream: StreamContext) {
    this.runs = new ScopedRuns(stream.scope);
  }

  decode(value: unknown): ParseResult {
    const type = isRecord(value) && typeof value['type'] === 'string' ? value['type'] : undefined;
    if (type === undefined)
      return toRejection(
        'type',
        new z.ZodError([
          { code: 'custom', path: [], message: 'expected a string "type" field', input: value },
        ]),
      );
    if (NO_OPS.has(type)) {
      if (type === 'steeringMessage' || type === 'followUpMessage') {
        const event = type === 'steeringMessage' ? 'oxi.steering_message' : 'oxi.follow_up_message';
        return accepted(type, this.note(this.stream.arrival(), 'run', event, {}));
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
        return this.endMessage((payload as Payload<'messageEnd'>).message, t);
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
          events.push(this.annotation(t, 'tool', undefined, attributes, start.tool_call_id));
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
        return [
          this.note(
            t,
            'run',
            'oxi.compaction',
            compactionAttributes((payload as Payload<'compaction'>).event),
          ),
        ];
      case 'retry': {
        const r = payload as Payload<'retry'>;
        return [
          this.note(
            t,
            'run',
            'oxi.retry',
            defined({
              'oxi.retry.attempt': r.attempt,
              'oxi.retry.max_retries': r.max_retries,
              'oxi.retry.after_s': r.retry_after_secs,
              'oxi.retry.reason': r.reason,
            }),
          ),
        ];
      }
      case 'autoRetryStart': {
        const r = payload as Payload<'autoRetryStart'>;
        return [
          this.note(
            t,
            'run',
            'oxi.auto_retry.start',
            defined({
              'oxi.retry.attempt': r.attempt,
              'oxi.retry.max_attempts': r.max_attempts,
              'oxi.retry.delay_ms': r.delay_ms,
              'oxi.retry.error': r.error_message,
            }),
          ),
        ];
      }
      case 'autoRetryEnd': {
        const r = payload as Payload<'autoRetryEnd'>;
        return [
          this.note(
            t,
            'run',
            'oxi.auto_retry.end',
            defined({
              'oxi.retry.attempt': r.attempt,
              'oxi.retry.success': r.success,
              'oxi.retry.error': r.final_error,
            }),
          ),
        ];
      }
      case 'fallback': {
        const f = payload as Payload<'fallback'>;
        return [
          this.note(
            t,
            'run',
            'oxi.fallback',
            defined({
              'oxi.fallback.from_model': f.from_model,
              'oxi.fallback.to_model': f.to_model,
            }),
          ),
        ];
      }
      case 'ttsrInterrupt':
        return [
          this.note(
            t,
            'run',
            'oxi.ttsr_interrupt',
            defined({ 'oxi.ttsr.rule_name': (payload as Payload<'ttsrInterrupt'>).rule_name }),
          ),
        ];
    }
    return [];
  }

  private endMessage(message: z.output<typeof Message>, t: HrTime): AgentEvent[] {
    if (message.role !== 'assistant') return [];
    const runId = this.runs.current();
    const events: AgentEvent[] = [...this.runs.ensureIteration(t)];
    for (const block of Array.isArray(message.content) ? message.content : []) {
      const call =
        isRecord(block) &&
        typeof block['type'] === 'string' &&
        block['type'].toLowerCase() === 'toolcall'
          ? ToolCall.safeParse(block)
          : undefined;
      if (call?.success === true) {
        this.toolNames.set(call.data.id, call.data.name);
        events.push({
          type: 'ToolCallCompleted',
          runId,
          time: t,
          callId: call.data.id,
          toolName: call.data.name,
          arguments: call.data.arguments,
        });
      }
    }
    const usage = message.usage;
    if (usage !== null && usage !== undefined) {
      events.push({
        type: 'UsageRecorded',
        runId,
        time: t,
        usage: {
          inputTokens: usage.input ?? undefined,
          outputTokens: usage.output ?? undefined,
          cacheReadInputTokens: usage.cache_read ?? undefined,
          cacheCreationInputTokens: usage.cache_write ?? undefined,
        },
      });
      const cost = usage.cost ?? {};
      const costs = Object.fromEntries(Object.entries(cost).map(([k, v]) => [`oxi.cost.${k}`, v]));
      if (Object.keys(costs).length > 0)
        events.push(
          this.annotation(t, 'model_call', undefined, {
            ...costs,
            'oxi.cost.total': Object.values(cost).reduce((a, b) => a + b, 0),
          }),
        );
    }
    if (typeof message.api === 'string')
      events.push(this.annotation(t, 'model_call', undefined, { 'oxi.api': message.api }));
    events.push({
      type: 'AssistantMessageCommitted',
      runId,
      time: t,
      provider: message.provider ?? undefined,
      model: message.model ?? undefined,
      finishReason: toFinishReason(message.stop_reason),
    });
    this.runs.iterationOpen = false;
    return events;
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

  private note(
    t: HrTime,
    target: 'run',
    event: string,
    attributes: Record<string, AnnotationValue>,
  ): AgentEvent {
    return this.annotation(t, target, event, attributes);
  }

  private annotation(
    t: HrTime,
    target: 'run' | 'model_call' | 'tool',
    event: string | undefined,
    attributes: Record<string, AnnotationValue>,
    callId?: string,
  ): AgentEvent {
    return {
      type: 'Annotation',
      runId: this.runs.current(),
      time: t,
      target,
      event,
      callId,
      attributes,
    };
  }
}

function defined(
  attributes: Record<string, AnnotationValue | null | undefined>,
): Record<string, AnnotationValue> {
  return Object.fromEntries(
    Object.entries(attributes).filter(
      (e): e is [string, AnnotationValue] => e[1] !== null && e[1] !== undefined,
    ),
  );
}

function compactionAttributes(
  event: z.output<typeof CompactionEvent>,
): Record<string, AnnotationValue> {
  const [kind, body] = Object.entries(event)[0] ?? ['unknown', {}];
  const b = isRecord(body) ? body : {};
  const result = isRecord(b['result']) ? b['result'] : {};
  return defined({
    'oxi.compaction.kind': kind.toLowerCase(),
    'oxi.compaction.context_tokens': b['context_tokens'] as number | undefined,
    'oxi.compaction.iteration': b['iteration'] as number | undefined,
    'oxi.compaction.message_count': b['message_count'] as number | undefined,
    'oxi.compaction.compacted_count': result['compacted_count'] as number | undefined,
    'oxi.compaction.duration_ms': b['duration_ms'] as number | undefined,
    'oxi.compaction.reason': b['reason'] as string | undefined,
    'oxi.compaction.error': b['error'] as string | undefined,
  });
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
