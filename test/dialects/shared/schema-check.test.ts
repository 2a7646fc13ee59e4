// The checks worked out from the dialects' schemas take the accepted path without the schema; they
// must never change an answer. For values generated from each schema itself (fields good, missing,
// null, of another type, numbers negative, fractional, unsafe or infinite, extra keys, arrays and
// unions of them), a check accepts exactly what its schema accepts, and what it accepted is what
// the schema gives (key order aside), as the value and as the value read back from JSON.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as agentSdk from '../../../src/dialects/agent-sdk/agent-sdk-schemas.js';
import * as behest from '../../../src/dialects/behest/behest-schemas.js';
import * as crabtalk from '../../../src/dialects/crabtalk/crabtalk.js';
import * as oxi from '../../../src/dialects/oxi/oxi-schemas.js';
import { checkOf } from '../../../src/dialects/shared/schema-check.js';

const noise = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, 1, 7, -1, 1.5, 2 ** 53, 2 ** 53 + 2, '', 'x', [], {}),
  fc.constantFrom(Number.MAX_VALUE, Infinity, -Infinity, Number.NaN),
  fc.string({ maxLength: 6 }),
  fc.integer(),
  fc.double(),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);

interface Definition {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly catchall?: z.ZodType;
}

/** Values shaped after `schema`, mostly nearly right: at every part, now and then, noise instead. */
function near(schema: z.ZodType): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: shaped(schema), weight: 5 }, { arbitrary: noise, weight: 1 });
}

function shaped(schema: z.ZodType): fc.Arbitrary<unknown> {
  const def = schema._zod.def as Definition;
  switch (def.type) {
    case 'string':
      return fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('', 'stop', 'toolUse'));
    case 'boolean':
      return fc.boolean();
    case 'number':
      return fc.oneof(fc.nat(), fc.integer({ min: -3, max: 3 }), fc.double({ min: -2, max: 5 }));
    case 'unknown':
      return noise;
    case 'optional':
      return fc.oneof(fc.constant(undefined), near(def.innerType!));
    case 'nullable':
      return fc.oneof(fc.constant(null), near(def.innerType!));
    case 'array':
      return fc.array(near(def.element!), { maxLength: 3 });
    case 'union':
      return fc.oneof(...def.options!.map(near));
    case 'object': {
      const fields = Object.fromEntries(
        Object.entries(def.shape!).map(([key, field]) => [key, near(field)]),
      );
      const extra =
        def.catchall === undefined
          ? fc.constant({})
          : fc.dictionary(fc.constantFrom('extra', 'more', 'Ok', 'id'), near(def.catchall), {
              maxKeys: 2,
            });
      // Fields present most of the time, any of them missing now and then; extra keys before
      // and after them.
      return fc
        .tuple(extra, fc.record(fields, { requiredKeys: [] }), fc.record(fields), fc.boolean())
        .map(([more, some, all, whole]) => ({ ...more, ...(whole ? all : some) }));
    }
    default:
      return noise;
  }
}

const checked: [string, z.ZodType][] = [
  ...Object.entries(oxi.SCHEMAS).map(([k, s]) => [`oxi ${k}`, s] as [string, z.ZodType]),
  ['oxi tool call', oxi.ToolCall],
  ...Object.entries(agentSdk.SCHEMAS).map(([k, s]) => [`agent-sdk ${k}`, s] as [string, z.ZodType]),
  ...Object.entries(crabtalk.SCHEMAS).map(([k, s]) => [`crabtalk ${k}`, s] as [string, z.ZodType]),
];
/** Each part the checks know, on its own (in the dialects' schemas some sit deep down). */
const parts: [string, z.ZodType][] = [
  ['catch-all of numbers', z.looseObject({}).catchall(z.number())],
  ['catch-all beside fields', z.looseObject({ a: z.string() }).catchall(z.boolean().nullish())],
  ['array of objects', z.array(z.looseObject({ n: z.number().int() }))],
  [
    'union of objects',
    z.union([z.looseObject({ Ok: z.string() }), z.looseObject({ Err: z.number() })]),
  ],
  ['unknown field', z.looseObject({ v: z.unknown(), w: z.unknown().optional() })],
  ['non-negative number', z.number().nonnegative()],
];

describe('checks worked out from a schema', () => {
  it("cover every variant of oxi (but compaction), agent-sdk and crabtalk, and oxi's tool calls", () => {
    for (const [name, schema] of [...checked, ...parts])
      expect(checkOf(schema), name).toBeDefined();
    expect(Object.keys(oxi.CHECKS).sort()).toEqual(
      Object.keys(oxi.SCHEMAS)
        .filter((k) => k !== 'compaction')
        .sort(),
    );
    expect(Object.keys(agentSdk.CHECKS).sort()).toEqual(Object.keys(agentSdk.SCHEMAS).sort());
    expect(Object.keys(crabtalk.CHECKS).sort()).toEqual(Object.keys(crabtalk.SCHEMAS).sort());
  });

  it.each([...checked, ...parts])(
    'accept exactly what the schema accepts, as it gives it: %s',
    (_, schema) => {
      const check = checkOf(schema)!;
      let accepted = 0;
      let refused = 0;
      fc.assert(
        fc.property(near(schema), (value) => {
          for (const v of [value, JSON.parse(JSON.stringify(value ?? null)) as unknown]) {
            const parsed = schema.safeParse(v);
            expect(check(v)).toBe(parsed.success);
            if (parsed.success) {
              expect(v).toEqual(parsed.data);
              accepted += 1;
            } else refused += 1;
          }
        }),
        { numRuns: 400 },
      );
      // Both answers are reached (each is most of a few hundred values' worth, not a rare case).
      expect(accepted).toBeGreaterThan(20);
      expect(refused).toBeGreaterThan(20);
    },
  );

  it('are not worked out for parts whose output is not the input itself, or checks not listed', () => {
    for (const schema of [
      z.string().min(1),
      z.number().positive(),
      z.number().int().max(9),
      z.object({ a: z.string() }),
      z.strictObject({ a: z.string() }),
      z.looseObject({ a: z.string().transform((s) => s.length) }),
      z.array(z.string()).min(1),
      z.union([z.string(), z.string().min(2)]),
      z.literal('a'),
      z.enum(['a', 'b']),
      z.string().default('a'),
      behest.RunStarted,
      behest.ContextBuilt,
    ])
      expect(checkOf(schema)).toBeUndefined();
  });
});
