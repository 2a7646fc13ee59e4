import type {
  Attributes,
  Counter,
  Meter,
  MetricOptions,
  ObservableResult,
  UpDownCounter,
} from '@opentelemetry/api';

import { AttributePaths } from './attribute-paths.js';

interface Entry {
  readonly attributes: Attributes;
  value: number;
}

/**
 * A counter of the mapping's, summed in the bridge and reported at each metric collection through
 * an observable instrument of the same name, unit and kind of sum: an add finds its sum by its
 * attributes' names and values (`AttributePaths`), where the SDK's counter sorts, copies and
 * hashes the attribute set on every add; nothing is allocated once a set has been seen. The points
 * exported are the same sums (cumulative, or deltas where a reader asks for them); an attribute
 * whose value is undefined is left out, as the SDK leaves it out.
 */
export class CounterTally implements Counter, UpDownCounter {
  private readonly sums = new AttributePaths<Entry>((attributes) => ({ attributes, value: 0 }));

  constructor(private readonly monotonic: boolean) {}

  add(value: number, attributes: Attributes = {}): void {
    // As the SDK's counter: a monotonic sum takes no negative value.
    if (this.monotonic && value < 0) return;
    this.sums.find(attributes).value += value;
  }

  /** Reports every attribute set's sum (an observable instrument's callback). */
  observe(result: ObservableResult): void {
    for (const entry of this.sums.entries()) result.observe(entry.value, entry.attributes);
  }
}

const talliesOf = new WeakMap<Meter, Map<string, CounterTally>>();

/**
 * The tallied counter `name` of a meter, made with its observable instrument on first use:
 * sinks writing to one meter provider share its meter, and so each counter's tally (two
 * observations of one attribute set would not add up).
 */
export function talliedCounter(
  meter: Meter,
  name: string,
  options: MetricOptions,
  kind: 'counter' | 'up_down_counter' = 'counter',
): CounterTally {
  let made = talliesOf.get(meter);
  if (made === undefined) {
    made = new Map();
    talliesOf.set(meter, made);
  }
  let tally = made.get(name);
  if (tally === undefined) {
    const created = new CounterTally(kind === 'counter');
    const observable =
      kind === 'counter'
        ? meter.createObservableCounter(name, options)
        : meter.createObservableUpDownCounter(name, options);
    observable.addCallback((result) => created.observe(result));
    made.set(name, created);
    tally = created;
  }
  return tally;
}
