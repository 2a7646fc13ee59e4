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
 * A step of the path an add takes through its attributes, as given: from a node, by an attribute's
 * name and then its value, to the next node; the node the last attribute leads to holds the entry.
 */
interface Node {
  entry: Entry | undefined;
  next: Map<string, Branch> | undefined;
}

/**
 * The nodes after one attribute name: by a scalar value, or by the JSON of any other (a list, a
 * map, bytes, null), kept apart from the scalars so that no JSON is taken for a string.
 */
interface Branch {
  readonly scalars: Map<unknown, Node>;
  structured: Map<string, Node> | undefined;
}

/**
 * A counter of the mapping's, summed in the bridge and reported at each metric collection through
 * an observable instrument of the same name, unit and kind of sum: an add follows its attributes'
 * names and values through a tree of maps to its sum, where the SDK's counter sorts, copies and
 * hashes the attribute set on every add; nothing is allocated once a set has been seen. The points
 * exported are the same sums (cumulative, or deltas where a reader asks for them); an attribute
 * whose value is undefined is left out, as the SDK leaves it out.
 */
export class CounterTally implements Counter, UpDownCounter {
  /** By the attributes as given (key order included): several paths for one set at most. */
  private readonly root: Node = { entry: undefined, next: undefined };
  /** By the attribute set, whatever its key order: one entry, so one point, per set. */
  private readonly bySet = new Map<string, Entry>();

  constructor(private readonly monotonic: boolean) {}

  add(value: number, attributes: Attributes = {}): void {
    // As the SDK's counter: a monotonic sum takes no negative value.
    if (this.monotonic && value < 0) return;
    let node = this.root;
    for (const name in attributes) {
      const v = attributes[name];
      if (v !== undefined) node = step(node, name, v);
    }
    (node.entry ??= this.entryFor(attributes)).value += value;
  }

  /** Reports every attribute set's sum (an observable instrument's callback). */
  observe(result: ObservableResult): void {
    for (const entry of this.bySet.values()) result.observe(entry.value, entry.attributes);
  }

  private entryFor(attributes: Attributes): Entry {
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
    return entry;
  }
}

/** The node an attribute leads to from `node`, made on first use. */
function step(node: Node, name: string, value: unknown): Node {
  const next = (node.next ??= new Map<string, Branch>());
  let branch = next.get(name);
  if (branch === undefined) {
    branch = { scalars: new Map(), structured: undefined };
    next.set(name, branch);
  }
  const structured = typeof value === 'object';
  const nodes: Map<unknown, Node> = structured
    ? (branch.structured ??= new Map<string, Node>())
    : branch.scalars;
  const key = structured ? JSON.stringify(value) : value;
  let found = nodes.get(key);
  if (found === undefined) {
    found = { entry: undefined, next: undefined };
    nodes.set(key, found);
  }
  return found;
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
