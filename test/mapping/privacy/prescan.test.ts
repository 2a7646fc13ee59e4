// The prescan skips a layer of the scrubber only where none of the layer's patterns matches: it
// must say "no" exactly where every pattern, run on its own, finds nothing. The machine chooses
// the texts: strings drawn from each pattern itself (its assertions left out, so some match and
// some just miss), cut, with random case, planted in random text of many alphabets, and next to
// fragments of other patterns; and user patterns of every flag, with back references and group
// names that repeat.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCRUB_PATTERNS } from '../../../src/index.js';
import { CONTEXT_RULES } from '../../../src/mapping/privacy/context-rules.js';
import {
  CHECKED_SECRET_RULES,
  PERSONAL_DATA_RULES,
} from '../../../src/mapping/privacy/personal-data.js';
import { createPrescan } from '../../../src/mapping/privacy/prescan.js';
import { planted } from '../../helpers/secret-forms.js';

const RUNS = Number(process.env['PRESCAN_PROPERTY_RUNS'] ?? 3_000);

/** What the prescan stands for: whether any pattern, on its own, matches anywhere. */
const anyMatches = (patterns: readonly RegExp[], text: string): boolean =>
  patterns.some((p) => new RegExp(p.source, p.flags.replace(/[gy]/g, '')).test(text));

/**
 * The pattern's source without its assertions (`\b`, `^`, `$`, lookarounds) and group names, so
 * that strings can be drawn from it; what is drawn then may or may not match the pattern itself.
 */
function withoutAssertions(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1];
      if (next !== 'b' && next !== 'B') out += c + (next ?? '');
      i += 1;
    } else if (c === '[') {
      // A character class, copied whole.
      let j = i + 1;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j;
    } else if (/^\(\?<?[=!]/.test(source.slice(i, i + 4))) {
      // A lookaround, skipped to its closing parenthesis.
      let depth = 0;
      let j = i;
      for (; j < source.length; j += 1) {
        const d = source[j];
        if (d === '\\') j += 1;
        else if (d === '[') {
          j += 1;
          while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
        } else if (d === '(') depth += 1;
        else if (d === ')' && (depth -= 1) === 0) break;
      }
      i = j;
    } else if (source.startsWith('(?<', i)) {
      out += '(?:';
      i = source.indexOf('>', i);
    } else if (c !== '^' && c !== '$') out += c;
  }
  return out;
}

/**
 * Strings drawn from `pattern`, then cut, their case changed (where the pattern ignores case, or
 * for one string in four: a near miss).
 */
function drawnFrom(pattern: RegExp): fc.Arbitrary<string> {
  const drawn = fc.stringMatching(new RegExp(`^(?:${withoutAssertions(pattern.source)})$`));
  return fc
    .tuple(
      drawn,
      fc.nat(),
      fc.nat(),
      fc.boolean(),
      fc.array(fc.boolean(), { maxLength: 64 }),
      fc.nat(3),
    )
    .map(([text, cutAt, cutEnd, cut, flips, flipAnyway]) => {
      let out = text;
      if (cut && out.length > 2) {
        const from = cutAt % out.length;
        out = out.slice(0, from) + out.slice(from + 1 + (cutEnd % 3));
      }
      if (!pattern.ignoreCase && flipAnyway !== 0) return out;
      return [...out]
        .map((ch, i) => (flips[i % Math.max(1, flips.length)] === true ? flipCase(ch) : ch))
        .join('');
    });
}

const flipCase = (ch: string) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase());

const noise = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.stringMatching(/^[A-Za-z0-9+/=_-]{0,48}$/),
  fc.stringMatching(/^[ \n\t:=@.,;"'/-]{0,4}$/),
  fc.constantFrom('', ' ', '\n', ':', '=', '@', '"', 'https://', 'password: ', 'Bearer ', '.com'),
);

/** Texts for a layer: pieces drawn from its patterns and from noise, joined. */
function textsFor(patterns: readonly RegExp[]): fc.Arbitrary<string> {
  const drawn = fc.oneof(...patterns.map(drawnFrom));
  return fc
    .array(fc.oneof({ weight: 2, arbitrary: drawn }, { weight: 3, arbitrary: noise }), {
      minLength: 1,
      maxLength: 5,
    })
    .map((pieces) => pieces.join(''));
}

const layers: (readonly [string, readonly RegExp[]])[] = [
  ["the issuers' shapes", DEFAULT_SCRUB_PATTERNS],
  ['the context rules', CONTEXT_RULES.map((r) => r.pattern)],
  ['the checked shapes', [...CHECKED_SECRET_RULES, ...PERSONAL_DATA_RULES].map((r) => r.pattern)],
];

describe('the prescan says "no" exactly where no pattern of its layer matches', () => {
  it.each(layers)('%s, on generated texts', (_name, patterns) => {
    const prescan = createPrescan(patterns);
    let hits = 0;
    fc.assert(
      fc.property(textsFor(patterns), (text) => {
        const expected = anyMatches(patterns, text);
        if (expected) hits += 1;
        expect(prescan(text)).toBe(expected);
      }),
      { numRuns: RUNS, seed: 20261128 },
    );
    // Both answers are exercised: the generated texts are neither all hits nor all misses.
    expect(hits).toBeGreaterThan(RUNS * 0.1);
    expect(hits).toBeLessThan(RUNS * 0.9);
  });

  it('keeps the meaning of user patterns of every flag, with back references and repeated names', () => {
    const sources = [
      String.raw`(?<keep>x)y`,
      String.raw`(?<keep>z)\k<keep>`,
      String.raw`(a)\1`,
      String.raw`^ab`,
      String.raw`cd$`,
      String.raw`e.f`,
      String.raw`[A-Z]{2}\d`,
      String.raw`\bqq\b`,
      String.raw`(?<=k)m`,
      String.raw`\u{1F600}`,
      String.raw`[\p{L}--[a-z]]`,
    ];
    const pattern = fc
      .tuple(fc.constantFrom(...sources), fc.subarray(['i', 'm', 's', 'u', 'v', 'y', 'd']))
      .map(([source, flags]) => {
        try {
          return new RegExp(source, `g${flags.join('')}`);
        } catch {
          return new RegExp(source.replace(/[\\{}[\]-]/g, ''), 'g');
        }
      });
    const text = fc
      .array(
        fc.oneof(
          fc.constantFrom(
            'x',
            'y',
            'z',
            'a',
            'A',
            'b',
            'c',
            'd',
            'e',
            'f',
            'k',
            'm',
            'q',
            '\n',
            ' ',
          ),
          fc.constantFrom('😀', 'É', 'AB1', 'xy', 'zz', 'aa', 'ab', 'cd', 'km', 'qq', 'e\nf'),
        ),
        { maxLength: 10 },
      )
      .map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(fc.array(pattern, { minLength: 1, maxLength: 4 }), text, (patterns, t) => {
        expect(createPrescan(patterns)(t)).toBe(anyMatches(patterns, t));
      }),
      { numRuns: RUNS, seed: 20261128 },
    );
  });
});

describe("a context rule's requirement", () => {
  // The context layer is skipped where no rule's requirement is found, and a rule where its own is
  // not: sound only if every text a rule's pattern matches holds its requirement.
  it('is found in every text its pattern matches', () => {
    const patterns = CONTEXT_RULES.map((r) => r.pattern);
    const texts = fc.oneof(
      textsFor(patterns),
      planted.map((p) => p.text),
    );
    const hits = new Map<string, number>();
    fc.assert(
      fc.property(texts, (text) => {
        for (const rule of CONTEXT_RULES) {
          if (!anyMatches([rule.pattern], text)) continue;
          hits.set(rule.name, (hits.get(rule.name) ?? 0) + 1);
          expect(anyMatches([rule.requires], text), `${rule.name}: ${text}`).toBe(true);
        }
      }),
      { numRuns: RUNS * 3, seed: 20261203 },
    );
    // Every rule's pattern matched often enough for its requirement to be tried.
    for (const rule of CONTEXT_RULES)
      expect(hits.get(rule.name) ?? 0, rule.name).toBeGreaterThan(20);
  });
});
