import type { Attributes, MeterProvider, ObservableCounter } from '@opentelemetry/api';
import * as S from '../semconv.js';
import { perMeterProvider } from './per-meter-provider.js';

/**
 * `agent_bridge.limits.hit`, counted in the bridge and reported at each metric collection through
 * an observable counter: a limit hit under load (the held-events bound, relieved at every event
 * beyond it) costs an increment, not an attribute hash. Sinks that share a meter provider share one
 * tally (observations of one attribute set do not add up).
 */
export class LimitTally {
  private readonly entries = new Map<string, { readonly attributes: Attributes; count: number }>();

  constructor(counter: ObservableCounter) {
    counter.addCallback((result) => {
      for (const entry of this.entries.values()) result.observe(entry.count, entry.attributes);
    });
  }

  add(limit: string): void {
    const entry = this.entries.get(limit);
    if (entry !== undefined) entry.count += 1;
    else this.entries.set(limit, { attributes: { [S.ATTR_AGENT_BRIDGE_LIMIT]: limit }, count: 1 });
  }
}

const tallyOf = perMeterProvider<LimitTally>();

/** The tally of a meter provider, created with its counter on first use. */
export function limitTallyFor(
  meterProvider: MeterProvider,
  createCounter: () => ObservableCounter,
): LimitTally {
  return tallyOf(meterProvider, () => new LimitTally(createCounter()));
}
