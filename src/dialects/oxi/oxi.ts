import type { HrTime } from '../../events/hr-time.js';
import type { AgentEvent } from '../../events/agent-event.js';
import type { Dialect, ParseResult, StreamContext, Verdict } from '../shared/parse-result.js';
import { accepted, ignoredVariant, isRecord, rejectedSchema } from '../shared/parse-result.js';
import { endAssistantMessage, hasTokens, lastBlockType, tokenUsage } from './oxi-message.js';
import { toRunNote } from './oxi-notes.js';
import { OxiTools } from './oxi-tools.js';
import { ScopedRuns } from '../shared/scoped-runs.js';
import type * as z from 'zod';
import { CHECKS, NO_OPS, OXI_TYPES, SCHEMAS, SHARED, toFinishReason } from './oxi-schemas.js';
import type { Payload, Schemas } from './oxi-schemas.js';
import { toRejection } from '../shared/zod-issue.js';
import { readWith } from '../shared/schema-check.js';

// oxi (oxi-agent / oxi-ai): `{"type":"<camelCase>", …snake_case fields}`, both the AgentLoop and
// the legacy run_with_channel vocabularies. No run ids and no timestamps: runs are scoped to
// the stream and timed by arrival. As the loops emit them (a7garden/oxi, oxi-agent/src/
// agent_loop/{mod,streaming,retry}.rs and oxi-agent/src/agent.rs): `error` does not end an
// AgentLoop run (`turnEnd` and `agentEnd{stop_reason:"Error"}` follow, or an auto-retry continues
// it in a new turn); thinking deltas arrive as `messageUpdate{delta}` too; the legacy
// `iteration{number}` comes after `complete` and counts the Agent's runs, so it starts nothing;
// the legacy loop goes on after `Primary model failed` with a fallback, and ends at any other
// `error`.

/** The legacy loop's error before it tries the fallback model: the run goes on. */
const PRIMARY_FAILED = /^Primary model failed/;

/** Events that close a run: after the run ended they belong to it, and never open another. */
const CLOSING = new Set(['agentEnd', 'complete', 'turnEnd', 'iteration', 'autoRetryEnd', 'usage']);

class OxiDecoder {
  private readonly runs: ScopedRuns;
  private readonly tools: OxiTools;
  private sawTextChunk = false;
  /** How the current run was started: the AgentLoop's `agentStart` or the legacy `start`. */
  private legacy = false;
  /** The error that fails the run if it ends without recovering. */
  private pendingError: string | undefined;
  /** Iterations whose usage was told (by `messageEnd`); `turnEnd` fills in the others. */
  private readonly usageTold = new Set<number>();
  /** The run that ended last, while no other has started: its trailing events stay with it. */
  private ended: string | undefined;

  constructor(private readonly stream: StreamContext) {
    this.runs = new ScopedRuns('oxi');
    this.tools = new OxiTools(this.runs);
  }

  decode(value: unknown): ParseResult {
    const type = isRecord(value) && typeof value['type'] === 'string' ? value['type'] : undefined;
    if (type === undefined) return rejectedSchema('type', 'expected a string "type" field');
    this.runs.see(value);
    if (NO_OPS.has(type)) {
      if (type === 'steeringMessage' || type === 'followUpMessage') {
        const event = type === 'steeringMessage' ? 'oxi.steering_message' : 'oxi.follow_up_message';
        return accepted(type, this.runs.annotation(this.stream.arrival(), 'run', event, {}));
      }
      return accepted(type);
    }
    if (!Object.hasOwn(SCHEMAS, type)) return ignoredVariant('oxi', type);
    const key = type as keyof Schemas;
    const parsed = readWith(SCHEMAS[key] as z.ZodType<Payload<typeof key>>, CHECKS[key], value);
    if (!parsed.success) return toRejection(type, parsed.error, type);
    const t = this.stream.arrival();
    if (!this.runs.open && this.ended !== undefined && CLOSING.has(type))
      return accepted(type, ...this.trailing(key, parsed.data, this.ended, t));
    return accepted(type, ...this.map(key, parsed.data, t));
  }

  /** What a closing event adds to a run that already ended (usage, notes), never a new run. */
  private trailing<K extends keyof Schemas>(
    type: K,
    payload: Payload<K>,
    runId: string,
    t: HrTime,
  ): AgentEvent[] {
    const note = toRunNote(type, payload);
    if (note !== undefined) return [{ type: 'Annotation', runId, time: t, target: 'run', ...note }];
    if (type === 'usage') return [this.usage(runId, t, payload)];
    return [];
  }

  private map<K extends keyof Schemas>(type: K, payload: Payload<K>, t: HrTime): AgentEvent[] {
    const note = toRunNote(type, payload);
    if (note !== undefined) {
      // An auto-retry or a fallback continues the run; a retry that gave up fails it.
      if (type === 'autoRetryStart' || type === 'fallback') this.pendingError = undefined;
      if (type === 'autoRetryEnd') {
        const end = payload as Payload<'autoRetryEnd'>;
        if (end.success === false) this.pendingError = end.final_error ?? this.pendingError;
      }
      return [this.runs.annotation(t, 'run', note.event, note.attributes)];
    }
    switch (type) {
      case 'agentStart':
      case 'start': {
        // A run still open with an error it never recovered from ended there.
        const events: AgentEvent[] =
          this.runs.open && this.pendingError !== undefined
            ? [this.failRun(t, this.pendingError)]
            : [];
        const runId = this.runs.start();
        this.sawTextChunk = false;
        this.legacy = type === 'start';
        this.pendingError = undefined;
        this.usageTold.clear();
        this.ended = undefined;
        events.push({
          type: 'RunStarted',
          runId,
          time: t,
          sessionId: (payload as Payload<'agentStart'>).session_id ?? undefined,
        });
        return events;
      }
      case 'turnStart':
        return this.runs.startIteration(t, (payload as Payload<'turnStart'>).turn_number);
      case 'iteration':
        // Legacy: sent after `complete`, counting the Agent's runs; it starts nothing.
        return [];
      case 'messageStart': {
        const message = (payload as Payload<'messageStart'>).message;
        return message.role === 'assistant' ? this.runs.ensureIteration(t) : [];
      }
      case 'messageUpdate': {
        const update = payload as Payload<'messageUpdate'>;
        const delta = update.delta;
        if (delta === null || delta === undefined || delta === '' || this.sawTextChunk) return [];
        // Thinking deltas come this way too: the snapshot's last block tells which it was.
        if (lastBlockType(update.message?.content) === 'thinking') return [];
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
      case 'messageEnd': {
        const message = (payload as Payload<'messageEnd'>).message;
        if (message.role === 'assistant' && hasTokens(message.usage))
          this.usageTold.add(Math.max(this.runs.iteration, 1));
        return endAssistantMessage(this.runs, this.tools.names, message, t);
      }
      case 'turnEnd': {
        // The turn's assistant message, with its usage: for a turn whose `messageEnd` was missed
        // or carried none.
        const end = payload as Payload<'turnEnd'>;
        const message = end.assistant_message;
        if (message === null || message === undefined || message.role !== 'assistant') return [];
        if (this.runs.iterationOpen)
          return endAssistantMessage(this.runs, this.tools.names, message, t);
        const turn = end.turn_number ?? this.runs.iteration;
        if (this.usageTold.has(turn) || !hasTokens(message.usage)) return [];
        this.usageTold.add(turn);
        return [
          {
            type: 'UsageRecorded',
            runId: this.runs.current(),
            time: t,
            iteration: turn,
            usage: tokenUsage(message.usage),
          },
        ];
      }
      case 'toolCall':
        return this.tools.call(payload as Payload<'toolCall'>, t);
      case 'toolExecutionStart':
      case 'toolStart':
        return this.tools.start(
          payload as Payload<'toolExecutionStart'>,
          type === 'toolStart' ? (payload as Payload<'toolStart'>) : undefined,
          t,
        );
      case 'toolExecutionEnd':
        return this.tools.executionEnd(payload as Payload<'toolExecutionEnd'>, t);
      case 'toolComplete':
        return this.tools.complete(payload as Payload<'toolComplete'>, t);
      case 'toolError':
        return this.tools.error(payload as Payload<'toolError'>, t);
      case 'usage':
        return [this.usage(this.runs.current(), t, payload)];
      case 'agentEnd':
      case 'complete':
        return this.end(
          t,
          (payload as Payload<'agentEnd'>).stop_reason,
          (payload as Payload<'agentEnd'>).messages,
        );
      case 'error': {
        const message = (payload as Payload<'error'>).message;
        // The legacy loop returns at any error but the primary model's (a fallback follows).
        if (this.legacy && !PRIMARY_FAILED.test(message))
          return this.terminal(this.failRun(t, message));
        // The AgentLoop goes on: `turnEnd` and `agentEnd`, or an auto-retry.
        this.pendingError = message;
        return [this.runs.annotation(t, 'run', 'oxi.error', { 'oxi.error.message': message })];
      }
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

  private usage(runId: string, t: HrTime, usage: Payload<'usage'>): AgentEvent {
    return {
      type: 'UsageRecorded',
      runId,
      time: t,
      usage: {
        inputTokens: usage.input_tokens ?? undefined,
        outputTokens: usage.output_tokens ?? undefined,
      },
    };
  }

  private failRun(t: HrTime, error: string): AgentEvent {
    return { type: 'RunFailed', runId: this.runs.current(), time: t, error };
  }

  private end(
    t: HrTime,
    stop: string | null | undefined,
    messages: readonly unknown[] | null | undefined,
  ): AgentEvent[] {
    const reason = toFinishReason(stop);
    const runId = this.runs.current();
    if (reason === 'aborted') return this.terminal({ type: 'RunCancelled', runId, time: t });
    if (reason === 'error' || (this.legacy && this.pendingError !== undefined)) {
      const last = [...(messages ?? [])]
        .reverse()
        .find((m) => isRecord(m) && m['role'] === 'assistant');
      const text =
        this.pendingError ??
        (isRecord(last) && typeof last['error_message'] === 'string'
          ? last['error_message']
          : 'the agent stopped with an error');
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
    this.ended = event.runId;
    this.runs.end();
    this.tools.names.clear();
    this.pendingError = undefined;
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
