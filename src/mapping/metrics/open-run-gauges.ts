import type { Attributes, Meter } from '@opentelemetry/api';
import type { OpenRunGroup } from '../open-runs.js';
import * as S from '../semconv.js';
import { perMeterProvider } from './per-meter-provider.js';

/** Where the gauges read open runs from: each sink's tracker. */
export type OpenRunSource = () => readonly OpenRunGroup[];

/**
 * The live view of runs in progress, at each metric collection: `agent.runs.open` (count),
 * `agent.runs.open.oldest_age` and `agent.runs.open.tokens` (so far, by token type), by agent,
 * provider and model. Sinks that share a meter provider share the gauges (their groups add up).
 */
export class OpenRunGauges {
  private readonly sources = new Set<OpenRunSource>();
  // Groups observed before: a group whose runs all ended reads 0 (the SDK would otherwise keep
  // its last value). As many as agent and model pairs, which the label budget bounds.
  private readonly known = new Map<string, OpenRunGroup>();

  constructor(meter: Meter, bound: (attributes: Attributes) => Attributes) {
    const count = meter.createObservableGauge(S.METRIC_AGENT_RUNS_OPEN, {
      unit: '{run}',
      description: 'Agent runs in progress now, by agent and model.',
    });
    const oldest = meter.createObservableGauge(S.METRIC_AGENT_RUNS_OPEN_OLDEST_AGE, {
      unit: 's',
      description: 'Age of the oldest run in progress (by its own start time), by agent and model.',
    });
    const tokens = meter.createObservableGauge(S.METRIC_AGENT_RUNS_OPEN_TOKENS, {
      unit: '{token}',
      description: 'Tokens used so far by the runs in progress, by agent, model and token type.',
    });
    meter.addBatchObservableCallback(
      (result) => {
        for (const group of this.groups()) {
          const attributes = bound(groupAttributes(group));
          result.observe(count, group.count, attributes);
          result.observe(oldest, group.oldestAgeSeconds, attributes);
          result.observe(tokens, group.inputTokens, {
            ...attributes,
            [S.ATTR_GEN_AI_TOKEN_TYPE]: S.GEN_AI_TOKEN_TYPE_INPUT,
          });
          result.observe(tokens, group.outputTokens, {
            ...attributes,
            [S.ATTR_GEN_AI_TOKEN_TYPE]: S.GEN_AI_TOKEN_TYPE_OUTPUT,
          });
        }
      },
      [count, oldest, tokens],
    );
  }

  add(source: OpenRunSource): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }

  /** Every source's groups, merged by agent, provider and model; empty ones for those gone. */
  private groups(): OpenRunGroup[] {
    const merged = new Map<string, OpenRunGroup>();
    for (const source of this.sources) {
      let groups: readonly OpenRunGroup[];
      try {
        groups = source();
      } catch {
        continue;
      }
      for (const group of groups) {
        const key = `${group.agent ?? ''}\0${group.provider ?? ''}\0${group.model ?? ''}`;
        const into = merged.get(key);
        if (into === undefined) {
          merged.set(key, { ...group });
          continue;
        }
        into.count += group.count;
        into.oldestAgeSeconds = Math.max(into.oldestAgeSeconds, group.oldestAgeSeconds);
        into.inputTokens += group.inputTokens;
        into.outputTokens += group.outputTokens;
      }
    }
    for (const [key, group] of this.known)
      if (!merged.has(key))
        merged.set(key, {
          ...group,
          count: 0,
          oldestAgeSeconds: 0,
          inputTokens: 0,
          outputTokens: 0,
        });
    for (const [key, group] of merged) this.known.set(key, group);
    return [...merged.values()];
  }
}

function groupAttributes(group: OpenRunGroup): Attributes {
  const attributes: Attributes = {};
  if (group.agent !== undefined) attributes[S.ATTR_GEN_AI_AGENT_NAME] = group.agent;
  if (group.provider !== undefined) attributes[S.ATTR_GEN_AI_PROVIDER_NAME] = group.provider;
  if (group.model !== undefined) attributes[S.ATTR_GEN_AI_REQUEST_MODEL] = group.model;
  return attributes;
}

/** The open-run gauges of a meter provider, created on first use. */
export const openRunGaugesFor = perMeterProvider<OpenRunGauges>();
