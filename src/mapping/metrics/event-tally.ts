import type { Attributes, MeterProvider, ObservableCounter } from '@opentelemetry/api';
import * as S from '../semconv.js';
import { perMeterProvider } from './per-meter-provider.js';

/**
 * `agent_bridge.events`, counted in the bridge and reported at each metric collection through an
 * observable counter: one increment per input instead of one attribute hash per input. Sinks that
 * share a meter provider share one tally (observations of one attribute set do not add up).
 */
export class EventTally {
  private readonly entries = new Map<string, { readonly attributes: Attributes; count: number }>();
  // The common case, looked up without building a key: accepted inputs by dialect.
  private readonly accepted = new Map<string, { readonly attributes: Attributes; count: number }>();

  constructor(counter: ObservableCounter) {
    counter.addCallback((result) => {
      for (const entry of this.accepted.values()) result.observe(entry.count, entry.attributes);
      for (const entry of this.entries.values()) result.observe(entry.count, entry.attributes);
    });
  }

  add(dialect: string, outcome: string, reason: string | undefined): void {
    if (outcome === 'accepted' && reason === undefined) {
      const entry = this.accepted.get(dialect);
      if (entry !== undefined) entry.count += 1;
      else this.accepted.set(dialect, { attributes: attributesOf(dialect, outcome), count: 1 });
      return;
    }
    const key = `${dialect}\0${outcome}\0${reason ?? ''}`;
    const entry = this.entries.get(key);
    if (entry !== undefined) entry.count += 1;
    else this.entries.set(key, { attributes: attributesOf(dialect, outcome, reason), count: 1 });
  }
}

function attributesOf(dialect: string, outcome: string, reason?: string): Attributes {
  const attributes: Attributes = {
    [S.ATTR_AGENT_BRIDGE_DIALECT]: dialect,
    [S.ATTR_AGENT_BRIDGE_EVENT_OUTCOME]: outcome,
  };
  if (reason !== undefined) attributes[S.ATTR_AGENT_BRIDGE_REASON] = reason;
  return attributes;
}

const tallyOf = perMeterProvider<EventTally>();

/** The tally of a meter provider, created with its counter on first use. */
export function eventTallyFor(
  meterProvider: MeterProvider,
  createCounter: () => ObservableCounter,
): EventTally {
  return tallyOf(meterProvider, () => new EventTally(createCounter()));
}
