import type { Attributes, Context, Counter, Histogram, UpDownCounter } from '@opentelemetry/api';
import type { Instruments } from './instruments.js';
import * as S from '../semconv.js';

/** Metric attributes whose values come from the runtime (provider, model and tool names). */
const BOUNDED_KEYS = [
  // A run may name its own agent (a sub-agent's): bounded like the other runtime names.
  S.ATTR_GEN_AI_AGENT_NAME,
  S.ATTR_GEN_AI_PROVIDER_NAME,
  S.ATTR_GEN_AI_REQUEST_MODEL,
  S.ATTR_GEN_AI_TOOL_NAME,
] as const;

/**
 * Keeps the metric series bounded: each runtime-named attribute takes at most `limit` distinct
 * values; later new ones are recorded as `_OTHER` (spans keep the real name) and counted in
 * `agent_bridge.limits.hit{agent_bridge.limit="metric_label_values"}`.
 */
export class LabelBudget {
  private readonly seen = new Map<string, Set<string>>(BOUNDED_KEYS.map((k) => [k, new Set()]));
  /**
   * What each frozen attribute set given before became, by its identity (the mapping hands out
   * each set once made, frozen: see `MetricAttributeSets`). A value once admitted stays admitted
   * and one over the budget stays over it, so a set's answer never changes.
   */
  private readonly answers = new WeakMap<Attributes, Answer>();

  constructor(
    private readonly limit: number,
    private readonly overflow: () => void,
  ) {}

  /** The attributes with any value beyond the budget replaced by `_OTHER`. */
  bound(attributes: Attributes | undefined): Attributes | undefined {
    if (attributes === undefined) return undefined;
    let answer = this.answers.get(attributes);
    if (answer === undefined) {
      answer = this.answer(attributes);
      // A frozen set cannot change under its identity; one that can is read each time. What a
      // frozen set becomes is frozen too, so that the tallies know it by its identity as well.
      if (Object.isFrozen(attributes)) {
        if (answer !== attributes) Object.freeze((answer as Overflowing).bounded);
        this.answers.set(attributes, answer);
      }
    }
    if (answer === attributes) return attributes;
    const { bounded, overflows } = answer as Overflowing;
    for (let n = 0; n < overflows; n += 1) this.overflow();
    return bounded;
  }

  private answer(attributes: Attributes): Answer {
    let bounded: Attributes | undefined;
    let overflows = 0;
    for (const key of BOUNDED_KEYS) {
      const value = attributes[key];
      if (typeof value !== 'string') continue;
      const seen = this.seen.get(key)!;
      if (seen.has(value)) continue;
      if (seen.size < this.limit) {
        seen.add(value);
        continue;
      }
      overflows += 1;
      (bounded ??= { ...attributes })[key] = S.ERROR_TYPE_OTHER;
    }
    return bounded === undefined ? attributes : { bounded, overflows };
  }
}

/** A set with values over the budget: what it is recorded as, and how many values it lost. */
interface Overflowing {
  readonly bounded: Attributes;
  readonly overflows: number;
}
/** The set itself where all its values are within the budget. */
type Answer = Attributes | Overflowing;

/** The instruments, recording through the budget (the bridge's own counters need none). */
export function boundedInstruments(instruments: Instruments, budget: LabelBudget): Instruments {
  const counter = <T extends Counter | UpDownCounter>(c: T): T =>
    ({
      add: (value: number, attributes?: Attributes, context?: Context) =>
        c.add(value, budget.bound(attributes), context),
    }) as T;
  const histogram = (h: Histogram): Histogram => ({
    record: (value: number, attributes?: Attributes, context?: Context) =>
      h.record(value, budget.bound(attributes), context),
  });
  return {
    ...instruments,
    tokenUsage: histogram(instruments.tokenUsage),
    operationDuration: histogram(instruments.operationDuration),
    timeToFirstChunk: histogram(instruments.timeToFirstChunk),
    invokeAgentDuration: histogram(instruments.invokeAgentDuration),
    executeToolDuration: histogram(instruments.executeToolDuration),
    inferenceCalls: histogram(instruments.inferenceCalls),
    agentToolCalls: histogram(instruments.agentToolCalls),
    cost: counter(instruments.cost),
    tokens: counter(instruments.tokens),
    inference: {
      duration: histogram(instruments.inference.duration),
      timeToFirstChunk: histogram(instruments.inference.timeToFirstChunk),
      timePerOutputChunk: histogram(instruments.inference.timePerOutputChunk),
      inputTokens: counter(instruments.inference.inputTokens),
      outputTokens: counter(instruments.inference.outputTokens),
      cacheReadInputTokens: counter(instruments.inference.cacheReadInputTokens),
      cacheWriteInputTokens: counter(instruments.inference.cacheWriteInputTokens),
      reasoningOutputTokens: counter(instruments.inference.reasoningOutputTokens),
      operationInputTokens: histogram(instruments.inference.operationInputTokens),
      operationOutputTokens: histogram(instruments.inference.operationOutputTokens),
    },
    runs: counter(instruments.runs),
    iterations: histogram(instruments.iterations),
    toolCalls: counter(instruments.toolCalls),
    doomLoops: counter(instruments.doomLoops),
  };
}
