import type { Attributes } from '@opentelemetry/api';

/**
 * A step of the path a record takes through its attributes, as given: from a node, by an
 * attribute's name and then its value, to the next node; the node the last attribute leads to
 * holds the entry.
 */
interface Node<E> {
  entry: E | undefined;
  next: Map<string, Branch<E>> | undefined;
}

/**
 * The nodes after one attribute name: by a scalar value, or by the JSON of any other (a list, a
 * map, bytes, null), kept apart from the scalars so that no JSON is taken for a string.
 */
interface Branch<E> {
  readonly scalars: Map<unknown, Node<E>>;
  structured: Map<string, Node<E>> | undefined;
}

/**
 * One entry per attribute set, found from the attributes as given: a lookup follows their names
 * and values through a tree of maps, where the SDK's instruments sort, copy and hash the set on
 * every record; nothing is allocated once a set has been seen. A set given in several key orders
 * takes several paths to one entry. An attribute whose value is undefined is left out of the set,
 * as the SDK leaves it out of what it exports.
 */
export class AttributePaths<E> {
  /** By the attributes as given (key order included): several paths for one set at most. */
  private readonly root: Node<E> = { entry: undefined, next: undefined };
  /** By the attribute set, whatever its key order: one entry per set. */
  private readonly bySet = new Map<string, E>();
  /** By the identity of an attributes object seen before (the mapping's sets are made once). */
  private readonly byObject = new WeakMap<Attributes, E>();

  /** `create` makes a set's entry from its defined attributes, keys sorted. */
  constructor(private readonly create: (attributes: Attributes) => E) {}

  /** The entry of the set `attributes` names, made on first use. */
  find(attributes: Attributes): E {
    const known = this.byObject.get(attributes);
    if (known !== undefined) return known;
    let node = this.root;
    for (const name in attributes) {
      const v = attributes[name];
      if (v !== undefined) node = step(node, name, v);
    }
    const entry = (node.entry ??= this.entryFor(attributes));
    // A frozen set cannot change under its identity; one that can is found by its values each time.
    if (Object.isFrozen(attributes)) this.byObject.set(attributes, entry);
    return entry;
  }

  /** Every set's entry, in the order the sets were first seen. */
  entries(): IterableIterator<E> {
    return this.bySet.values();
  }

  private entryFor(attributes: Attributes): E {
    const names = Object.keys(attributes).sort();
    const set = keyOf(attributes, names);
    let entry = this.bySet.get(set);
    if (entry === undefined) {
      const defined: Attributes = {};
      for (const name of names)
        if (attributes[name] !== undefined) defined[name] = attributes[name];
      entry = this.create(defined);
      this.bySet.set(set, entry);
    }
    return entry;
  }
}

/** The node an attribute leads to from `node`, made on first use. */
function step<E>(node: Node<E>, name: string, value: unknown): Node<E> {
  const next = (node.next ??= new Map<string, Branch<E>>());
  let branch = next.get(name);
  if (branch === undefined) {
    branch = { scalars: new Map(), structured: undefined };
    next.set(name, branch);
  }
  const structured = typeof value === 'object';
  const nodes: Map<unknown, Node<E>> = structured
    ? (branch.structured ??= new Map<string, Node<E>>())
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
