// The depth check decides before parsing whether a line nests too deep: exactly, whichever path
// it takes (the count of opening brackets, or the character scan).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonDeeperThan } from '../../src/dialects/shared/json-depth.js';

/** Depth by parsing: the deepest nesting of objects and arrays in a JSON value. */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === 'object' && value !== null)
    return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

describe('jsonDeeperThan', () => {
  it('agrees with the depth of the parsed value, strings with brackets included', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.string({ unit: fc.constantFrom('a', '{', '[', ']', '}', '"', '\\') }),
        fc.integer(),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 3 }), tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 8 }), (value, max) => {
        const text = JSON.stringify(value);
        expect(jsonDeeperThan(text, max)).toBe(depthOf(value) > max);
      }),
      { numRuns: 2000 },
    );
  });

  it('tells a line deeper than the limit among many shallow brackets', () => {
    const shallow = JSON.stringify({ a: Array.from({ length: 100 }, () => ({ b: [1] })) });
    expect(jsonDeeperThan(shallow, 4)).toBe(false);
    expect(jsonDeeperThan(shallow, 3)).toBe(true);
    expect(jsonDeeperThan(`[[[[${shallow}]]]]`, 6)).toBe(true);
  });
});
