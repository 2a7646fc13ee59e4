import type { Attributes } from '@opentelemetry/api';

/**
 * An attribute set as the mapping hands it out (`MetricAttributeSets`): frozen, and made once, so
 * that every later record of the same names and values in the same key order is given the
 * identical object. `made` is the memory, one per test case.
 */
export function sharedSet(made: Map<string, Attributes>, attributes: Attributes): Attributes {
  const key = JSON.stringify(
    Object.entries(attributes).map(([name, value]) => [name, typeof value, value ?? null]),
  );
  let set = made.get(key);
  if (set === undefined) {
    set = Object.freeze({ ...attributes });
    made.set(key, set);
  }
  return set;
}
