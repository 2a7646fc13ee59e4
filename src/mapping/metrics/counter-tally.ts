import type {
  Attributes,
  Counter,
  Meter,
  MetricOptions,
  ObservableResult,
  UpDownCounter,
} from '@opentelemetry/api';

interface Entry {
  readonly attributes: Attributes;
  value: number;
}

/**
 * A counter of the mapping's, summed in the bridge and reported at each metric collection through
 * an observable instrument of the same name, unit and kind of sum: an add costs a key read off the
 * attribute values and an increment, where the SDK's counter sorts, copies and hashes the attribute
 * set on every add. The points exported are the same sums (cumulative, or deltas where a reader
 * asks for them); an attribute whose value is undefined is left out, as the SDK leaves it out.
 */
export class CounterTally implements Counter, UpDownCounter {
  /** By the attributes as given (key order included), several keys for one set at most. */
  private readonly byKey = new Map<string, Entry>();
  /** By the attribute set, whatever its key order: one entry, so one point, per set. */
  private readonly bySet = new Map<string, Entry>();

  constructor(private readonly monotonic: boolean) {}

  add(value: number, attributes: Attributes = {}): void {
    // As the SDK's counter: a monotonic sum takes no negative value.
    if (this.monotonic && value < 0) return;
    const key = keyOf(attributes, Object.keys(attributes));
    const entry = this.byKey.get(key) ?? this.entryFor(key, attributes);
    entry.value += value;
  }

  /** Reports every attribute set's sum (an observable instrument's callback). */
  observe(result: ObservableResult): void {
    for (const entry of this.bySet.values()) result.observe(entry.value, entry.attributes);
  }

  private entryFor(key: string, attributes: Attributes): Entry {
    const names = Object.keys(attributes).sort();
    const set = keyOf(attributes, names);
    let entry = this.bySet.get(set);
    if (entry === undefined) {
      const defined: Attributes = {};
      for (const name of names)
        if (attributes[name] !== undefined) defined[name] = attributes[name];
      entry = { attributes: defined, value: 0 };
      this.bySet.set(set, entry);
    }
    this.byKey.set(key, entry);
    return entry;
  }
}

/**
 * The attributes' names and values, in the order of `names`, as one string that no other
 * attribute set gives: every name and string value is preceded by its length.
 */
function keyOf(attributes: Attributes, names: readonly string[]): string {
  let key = '';
  for (const name of names) {
    const value = attributes[name];
    if (value === undefined) continue;
    key += `${name.length}:${name}`;
    if (typeof value === 'string') key += `s${value.length}:${value}`;
    else if (typeof value === 'number') key += `n${value};`;
    else if (typeof value === 'boolean') key += `b${value};`;
    else {
      const json = JSON.stringify(value);
      key += `j${json.length}:${json}`;
    }
  }
  return key;
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
