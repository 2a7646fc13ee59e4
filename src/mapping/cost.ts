// What model calls cost: each call's tokens priced once (when its span is made, or when usage
// arrives after it), added to its run's total, and counted in `agent.cost.usd` and, by pricing
// class and priced or not, in `agent.tokens`. A call the price tables do not know is unpriced —
// said on its span and counted apart — never $0.
import type { Attributes, HrTime } from '@opentelemetry/api';
import type { TokenUsage } from '../events/agent-event.js';
import { quantizeUsd } from '../pricing/price-table.js';
import type { Price, UsageTokens } from '../pricing/price-table.js';
import { TOKEN_CLASSES, tokenClasses } from '../pricing/token-classes.js';
import type { ModelIdentity } from './metrics/metric-attribute-sets.js';
import { isFirstWrite } from './metrics/record-once.js';
import type { RunRecord } from './run-state.js';
import * as S from './semconv.js';
import type { TrackerContext } from './tracker-context.js';

/** Tokens of a call as the price tables take them; undefined when nothing was reported. */
export function usageTokens(usage: TokenUsage): UsageTokens | undefined {
  const { inputTokens, outputTokens, cacheReadInputTokens, cacheCreationInputTokens } = usage;
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  return {
    input: inputTokens ?? 0,
    output: outputTokens ?? 0,
    cacheRead: cacheReadInputTokens ?? 0,
    cacheWrite: cacheCreationInputTokens ?? 0,
    reasoning: usage.reasoningOutputTokens ?? 0,
  };
}

/**
 * Prices tokens of the run's call (or of usage reported after it) at `time`: adds to the run's
 * total and records the cost and token metrics once. Undefined when costs are off.
 */
export function priceUsage(
  ctx: TrackerContext,
  run: RunRecord,
  model: ModelIdentity,
  tokens: UsageTokens,
  time: HrTime,
): Price | undefined {
  const prices = ctx.prices;
  if (prices === undefined) return undefined;
  const price = prices.price({
    provider: model.provider,
    model: model.model,
    usage: tokens,
    at: new Date(time[0] * 1000 + Math.floor(time[1] / 1e6)),
  });
  const sets = ctx.metricSets;
  if (price.status === 'priced') {
    run.costUsd = (run.costUsd ?? 0) + price.usd;
    run.pricedCalls += 1;
    if (isFirstWrite(run))
      run.instruments.cost.add(quantizeUsd(price.usd), sets.agent(run.agentName, model));
  } else run.unpricedCalls += 1;
  const classes = tokenClasses(tokens);
  for (const tokenClass of TOKEN_CLASSES) {
    const count = classes[tokenClass];
    if (count <= 0 || !isFirstWrite(run)) continue;
    const attributes = sets.agentTokens(run.agentName, model, tokenClass, price.status);
    run.instruments.tokens.add(count, attributes);
  }
  return price;
}

/** A price as span attributes: the conventions' draft names for the amount, ours for the rest. */
export function costAttributes(price: Price): Attributes {
  if (price.status === 'unpriced')
    return {
      [S.ATTR_AGENT_COST_STATUS]: S.AGENT_COST_UNPRICED,
      [S.ATTR_AGENT_COST_UNPRICED_REASON]: price.reason,
    };
  return {
    [S.ATTR_GEN_AI_USAGE_COST_AMOUNT]: price.usd,
    [S.ATTR_GEN_AI_USAGE_COST_CURRENCY]: S.GEN_AI_USAGE_COST_CURRENCY_USD,
    [S.ATTR_GEN_AI_USAGE_COST_SOURCE]: S.GEN_AI_USAGE_COST_SOURCE_LOCAL,
    [S.ATTR_AGENT_COST_STATUS]: S.AGENT_COST_PRICED,
    [S.ATTR_AGENT_COST_PRICE_TABLE]: price.table,
  };
}

/** The run span's cost: the total of its priced calls, and whether every call was priced. */
export function runCostAttributes(run: RunRecord): Attributes {
  if (run.pricedCalls + run.unpricedCalls === 0) return {};
  const attributes: Attributes = {
    [S.ATTR_AGENT_RUN_COST_STATUS]:
      run.unpricedCalls === 0
        ? S.AGENT_COST_PRICED
        : run.pricedCalls === 0
          ? S.AGENT_COST_UNPRICED
          : S.AGENT_COST_PARTIAL,
  };
  if (run.costUsd !== undefined) attributes[S.ATTR_AGENT_RUN_COST_USD] = run.costUsd;
  return attributes;
}
