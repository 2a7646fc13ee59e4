import * as z from 'zod';
import type { TokenUsage } from '../../events/agent-event.js';
import { singleKey } from '../behest/behest.js';
import { CrabtalkConversation } from './crabtalk-conversation.js';
import type { CrabtalkDone } from './crabtalk-conversation.js';
import type { Dialect, ParseResult, StreamContext, Verdict } from '../shared/parse-result.js';
import { accepted, ignoredVariant, isRecord, rejectedSchema } from '../shared/parse-result.js';
import { toRejection } from '../shared/zod-issue.js';
import { checksOf, readWith } from '../shared/schema-check.js';

// crabtalk as JSON lines: serde's default external tagging of its AgentEvent (unit variants are
// bare strings), with crabllm's OpenAI-style tool calls and usage. One stream = one conversation.

const Count = z.number().int().nonnegative();
const ToolCall = z.looseObject({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  function: z.looseObject({ name: z.string(), arguments: z.string().nullish() }),
});
const Usage = z.looseObject({
  prompt_tokens: Count.nullish(),
  completion_tokens: Count.nullish(),
  prompt_cache_hit_tokens: Count.nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: Count.nullish() }).nullish(),
});
const StopReason = z.union([z.string(), z.looseObject({ Error: z.string() })]);
const Done = z.looseObject({
  steps: z
    .array(z.looseObject({ usage: Usage.nullish(), finish_reason: z.string().nullish() }))
    .nullish(),
  iterations: Count.nullish(),
  stop_reason: StopReason.nullish(),
  model: z.string().nullish(),
});

const UNIT = new Set(['TextStart', 'TextEnd', 'ThinkingStart', 'ThinkingEnd', 'ToolCallsComplete']);
export const SCHEMAS = {
  TextDelta: z.string(),
  ThinkingDelta: z.string(),
  ToolCallsBegin: z.array(ToolCall),
  ToolCallsStart: z.array(ToolCall),
  ToolResult: z.looseObject({
    call_id: z.string(),
    output: z.union([z.looseObject({ Ok: z.string() }), z.looseObject({ Err: z.string() })]),
    duration_ms: Count.nullish(),
  }),
  UserSteered: z.looseObject({}),
  Compact: z.looseObject({ summary: z.string().nullish() }),
  ContextUsage: z.looseObject({ usage: Usage.nullish() }),
  Done,
};
type Schemas = typeof SCHEMAS;
/** Every variant's payload read without its schema where the schema would give it back as it is. */
export const CHECKS = checksOf(SCHEMAS);

const toUsage = (u: z.output<typeof Usage>): TokenUsage => ({
  inputTokens: u.prompt_tokens ?? undefined,
  outputTokens: u.completion_tokens ?? undefined,
  cacheReadInputTokens: u.prompt_cache_hit_tokens ?? undefined,
  reasoningOutputTokens: u.completion_tokens_details?.reasoning_tokens ?? undefined,
});

const snake = (name: string) =>
  name.replace(/[A-Z]/g, (c, i: number) => `${i === 0 ? '' : '_'}${c.toLowerCase()}`);

/** `Done` → the conversation's terminal facts. */
export function toCrabtalkDone(done: z.output<typeof Done>): CrabtalkDone {
  const stop = done.stop_reason;
  const isError = isRecord(stop);
  return {
    steps: (done.steps ?? []).map((s) => ({
      usage: s.usage === null || s.usage === undefined ? undefined : toUsage(s.usage),
      finishReason: s.finish_reason ?? undefined,
    })),
    model:
      done.model === null || done.model === undefined || done.model === '' ? undefined : done.model,
    stopReason: isError ? 'error' : typeof stop === 'string' ? snake(stop) : undefined,
    error: isError ? stop.Error : undefined,
    iterations: done.iterations ?? undefined,
  };
}

class CrabtalkJsonDecoder {
  private readonly conversation: CrabtalkConversation;

  constructor(private readonly stream: StreamContext) {
    this.conversation = new CrabtalkConversation(undefined, {}, stream.maxJsonDepth);
  }

  decode(value: unknown): ParseResult {
    const t = this.stream.arrival();
    this.conversation.see(value);
    if (typeof value === 'string') {
      if (!UNIT.has(value)) return ignoredVariant('crabtalk', value.slice(0, 40));
      return accepted(
        value,
        ...(value === 'ToolCallsComplete'
          ? this.conversation.toolsComplete()
          : this.conversation.output(t)),
      );
    }
    const key = singleKey(value);
    if (key === undefined)
      return rejectedSchema(
        'crabtalk',
        'expected a variant name or an object with one variant key',
      );
    if (!Object.hasOwn(SCHEMAS, key)) return ignoredVariant('crabtalk', key);
    const name = key as keyof Schemas;
    const parsed = readWith(
      SCHEMAS[name] as z.ZodType,
      CHECKS[name],
      (value as Record<string, unknown>)[key],
    );
    if (!parsed.success) return toRejection(key, parsed.error, key);
    const c = this.conversation;
    const data = parsed.data as never;
    switch (name) {
      case 'TextDelta':
        return accepted(key, ...c.textDelta(t, data));
      case 'ThinkingDelta':
      case 'ToolCallsBegin':
        return accepted(key, ...c.output(t));
      case 'ToolCallsStart': {
        const calls = (data as z.output<Schemas['ToolCallsStart']>).map((call) => ({
          id: call.id ?? undefined,
          index: call.index ?? undefined,
          name: call.function.name,
          arguments: call.function.arguments ?? '',
        }));
        return accepted(key, ...c.toolCalls(t, calls));
      }
      case 'ToolResult': {
        const r = data as z.output<Schemas['ToolResult']>;
        const isError = 'Err' in r.output && typeof r.output['Err'] === 'string';
        const output = isError ? (r.output['Err'] as string) : (r.output as { Ok: string }).Ok;
        return accepted(
          key,
          ...c.toolResult(t, {
            callId: r.call_id,
            output,
            isError,
            durationMs: r.duration_ms ?? undefined,
          }),
        );
      }
      case 'UserSteered':
        return accepted(key, ...c.note(t, 'crabtalk.user_steered', {}));
      case 'Compact': {
        const summary = (data as z.output<Schemas['Compact']>).summary;
        return accepted(
          key,
          ...c.note(
            t,
            'crabtalk.compact',
            summary === null || summary === undefined
              ? {}
              : { 'crabtalk.compact.summary_length': summary.length },
          ),
        );
      }
      case 'ContextUsage': {
        const usage = (data as z.output<Schemas['ContextUsage']>).usage;
        return accepted(
          key,
          ...c.note(
            t,
            'crabtalk.context_usage',
            usage === null || usage === undefined
              ? {}
              : { 'crabtalk.context.prompt_tokens': usage.prompt_tokens ?? 0 },
          ),
        );
      }
      case 'Done':
        return accepted(key, ...c.done(t, toCrabtalkDone(data)));
    }
  }
}

function classify(value: unknown): Verdict {
  if (typeof value === 'string') return UNIT.has(value) ? 'yes' : 'no';
  const key = singleKey(value);
  if (key === undefined || !Object.hasOwn(SCHEMAS, key)) return 'no';
  const payload = (value as Record<string, unknown>)[key];
  if (isRecord(payload) && 'run_id' in payload) return 'no';
  return SCHEMAS[key as keyof Schemas].safeParse(payload).success ? 'yes' : 'maybe';
}

/** crabtalk JSON lines: external tagging; runs scoped to the stream, ended by Done. */
export const crabtalk: Dialect = {
  name: 'crabtalk',
  classify,
  createDecoder: (stream) => new CrabtalkJsonDecoder(stream),
};
