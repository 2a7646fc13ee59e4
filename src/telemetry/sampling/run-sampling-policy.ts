// Which runs a sampled deployment keeps: decided at each run's end, from its root span, as a
// function of the run alone (the same decision in any process, on any partition, after any
// restart). Every failed, cancelled, abandoned, doom-looped, breaker-tripped, slow or expensive
// run is kept; of the rest, a share given by the ratio, chosen by the run's trace id.
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { ConfigError } from '../../config.js';
import type { Env } from '../../sink-options.js';

/** What makes a run worth keeping whatever the ratio. */
export interface RunSamplingPolicy {
  /** Share of the other runs kept, 0 to 1. */
  readonly ratio: number;
  /** Keep runs that lasted at least this long (milliseconds, by their own timestamps). */
  readonly keepSlowerThanMillis?: number;
  /** Keep runs whose input and output tokens add up to at least this many. */
  readonly keepTokensAbove?: number;
  /** Keep runs that cost at least this much (US dollars, their priced calls). */
  readonly keepCostAboveUsd?: number;
  /** Spans held for open runs at most; beyond it the longest-held run is kept (counted). */
  readonly maxHeldSpans?: number;
}

export const DEFAULT_MAX_HELD_SPANS = 200_000;

/** Why a run was kept, or `ratio` / `dropped`. */
export type SamplingReason =
  | 'failed'
  | 'cancelled'
  | 'abandoned'
  | 'doom_loop'
  | 'breaker'
  | 'slow'
  | 'expensive'
  | 'ratio'
  | 'held_limit';

export interface SamplingDecision {
  readonly keep: boolean;
  readonly reason: SamplingReason;
}

const DOOM_LOOP_EVENT = 'agent.doom_loop.detected';
const BREAKER_EVENT = 'agent.compaction.circuit_breaker.opened';

/** The decision for a run, from its ended root span. */
export function decideRun(policy: RunSamplingPolicy, root: ReadableSpan): SamplingDecision {
  const a = root.attributes;
  const outcome = a['agent.run.outcome'];
  if (outcome === 'failed' || outcome === 'cancelled' || outcome === 'abandoned')
    return { keep: true, reason: outcome };
  if (root.events.some((e) => e.name === DOOM_LOOP_EVENT))
    return { keep: true, reason: 'doom_loop' };
  if (root.events.some((e) => e.name === BREAKER_EVENT)) return { keep: true, reason: 'breaker' };
  if (policy.keepSlowerThanMillis !== undefined) {
    const millis = root.duration[0] * 1000 + root.duration[1] / 1e6;
    if (millis >= policy.keepSlowerThanMillis) return { keep: true, reason: 'slow' };
  }
  if (policy.keepTokensAbove !== undefined) {
    const tokens = num(a['gen_ai.usage.input_tokens']) + num(a['gen_ai.usage.output_tokens']);
    if (tokens >= policy.keepTokensAbove) return { keep: true, reason: 'expensive' };
  }
  if (
    policy.keepCostAboveUsd !== undefined &&
    num(a['agent.run.cost.usd']) >= policy.keepCostAboveUsd
  )
    return { keep: true, reason: 'expensive' };
  return { keep: ratioKeeps(policy.ratio, root.spanContext().traceId), reason: 'ratio' };
}

/**
 * The ratio's choice for a trace: its id's last 8 hex digits below `ratio` × 2^32, as the
 * OpenTelemetry trace-id ratio sampler reads the id's randomness (the trailing bytes).
 */
export function ratioKeeps(ratio: number, traceId: string): boolean {
  if (ratio >= 1) return true;
  if (ratio <= 0) return false;
  return Number.parseInt(traceId.slice(-8), 16) < ratio * 2 ** 32;
}

const num = (value: unknown) => (typeof value === 'number' ? value : 0);

/**
 * The policy the environment sets, or none: `AGENT_OTEL_BRIDGE_SAMPLE_RATIO` turns run sampling
 * on; `AGENT_OTEL_BRIDGE_KEEP_SLOWER_THAN_MS`, `…_KEEP_TOKENS_ABOVE`, `…_KEEP_COST_ABOVE_USD` and
 * `AGENT_OTEL_BRIDGE_SAMPLE_MAX_HELD_SPANS` refine it.
 */
export function runSamplingFromEnv(env: Env): RunSamplingPolicy | undefined {
  const ratio = number(
    env,
    'AGENT_OTEL_BRIDGE_SAMPLE_RATIO',
    (v) => v >= 0 && v <= 1,
    'a number from 0 to 1',
  );
  if (ratio === undefined) return undefined;
  const positive = (name: string) => number(env, name, (v) => v > 0, 'a positive number');
  const slow = positive('AGENT_OTEL_BRIDGE_KEEP_SLOWER_THAN_MS');
  const tokens = positive('AGENT_OTEL_BRIDGE_KEEP_TOKENS_ABOVE');
  const cost = positive('AGENT_OTEL_BRIDGE_KEEP_COST_ABOVE_USD');
  const held = number(
    env,
    'AGENT_OTEL_BRIDGE_SAMPLE_MAX_HELD_SPANS',
    (v) => Number.isSafeInteger(v) && v > 0,
    'a positive integer',
  );
  return {
    ratio,
    ...(slow === undefined ? {} : { keepSlowerThanMillis: slow }),
    ...(tokens === undefined ? {} : { keepTokensAbove: tokens }),
    ...(cost === undefined ? {} : { keepCostAboveUsd: cost }),
    ...(held === undefined ? {} : { maxHeldSpans: held }),
  };
}

function number(
  env: Env,
  name: string,
  valid: (value: number) => boolean,
  expected: string,
): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || !valid(value))
    throw new ConfigError(`${name}=${raw}: expected ${expected}`);
  return value;
}
