// Every scrub pattern runs in linear time, as judged by a ReDoS checker (recheck): safe by analysis
// of the pattern's automaton where it can, otherwise by attack strings it generates and grows for
// that pattern. A pattern whose repeats are all bounded can still be called polynomial (within
// its bounds); for those, the attack recheck found is grown to 256 KiB and 1 MiB, and the larger
// must take at most 8× the smaller (a quadratic pattern takes 16×; best of three, 250 ms floor).
// The check tells the quadratic URL-password pattern this replaced apart. Each layer's prescan
// (all its patterns joined in one alternation) is held to the same bound on every attack of its
// layer's patterns.
// How long each scrub layer takes on adversarial text of growing size (the code around the
// patterns included) is the benchmark's to print (`npm run bench`, "scrub layers in linear time").
import { checkSync } from 'recheck';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCRUB_PATTERNS } from '../../../src/index.js';
import { CONTEXT_RULES, VALUE_PATTERN } from '../../../src/mapping/privacy/context-rules.js';
import {
  CHECKED_SECRET_RULES,
  PERSONAL_DATA_RULES,
} from '../../../src/mapping/privacy/personal-data.js';
import type { Prescan } from '../../../src/mapping/privacy/prescan.js';
import { createPrescan } from '../../../src/mapping/privacy/prescan.js';

const check = (pattern: RegExp) => checkSync(pattern.source, pattern.flags, { timeout: 20_000 });

const checked = [...CHECKED_SECRET_RULES, ...PERSONAL_DATA_RULES].map((r) => r.pattern);
const prescans = {
  shapes: createPrescan(DEFAULT_SCRUB_PATTERNS),
  checked: createPrescan(checked),
  context: createPrescan(CONTEXT_RULES.map((r) => r.requires)),
};

/** Each pattern, with the prescan of its layer (none: it is read only after a credential's name). */
const patterns: (readonly [string, RegExp, Prescan | undefined])[] = [
  ...DEFAULT_SCRUB_PATTERNS.map((p) => [p.source.slice(0, 50), p, prescans.shapes] as const),
  ...[...CHECKED_SECRET_RULES, ...PERSONAL_DATA_RULES].map(
    (r) => [r.name, r.pattern, prescans.checked] as const,
  ),
  ...CONTEXT_RULES.map((r) => [`context rule ${r.name}`, r.pattern, prescans.context] as const),
  ...CONTEXT_RULES.map(
    (r) => [`context rule ${r.name}'s requirement`, r.requires, prescans.context] as const,
  ),
  ['a credential value after its name', VALUE_PATTERN, undefined],
];

describe('scrub patterns run in linear time', () => {
  it('tells a quadratic pattern apart (the URL-password pattern this replaced)', () => {
    const quadratic = /(?<keep>[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi;
    const result = check(quadratic);
    expect(result.status).toBe('vulnerable');
    expect(result.status === 'vulnerable' && result.complexity.type).toBe('polynomial');
  });

  it('checks every pattern of every layer', () => {
    expect(patterns.length).toBeGreaterThanOrEqual(
      DEFAULT_SCRUB_PATTERNS.length +
        CHECKED_SECRET_RULES.length +
        PERSONAL_DATA_RULES.length +
        CONTEXT_RULES.length * 2,
    );
  });

  it.each(patterns)('%s', (_name, pattern, prescan) => {
    const result = check(pattern);
    if (result.status === 'safe') return;
    expect(result.status, JSON.stringify(result).slice(0, 2000)).toBe('vulnerable');
    if (result.status !== 'vulnerable') return;
    // Its attack, grown: the pumps repeated to fill the size.
    const { pumps, suffix } = result.attack;
    const grown = (bytes: number) => {
      const unit = pumps.reduce((n, p) => n + p.pump.length, 0);
      const times = Math.ceil(bytes / Math.max(1, unit));
      return pumps.map((p) => p.prefix + p.pump.repeat(times)).join('') + suffix;
    };
    const timed = (scan: (text: string) => unknown) => (text: string) => {
      let best = Infinity;
      for (let i = 0; i < 3; i += 1) {
        const start = performance.now();
        scan(text);
        best = Math.min(best, performance.now() - start);
      }
      return best;
    };
    const re = new RegExp(pattern.source, pattern.flags);
    const scans: [string, (text: string) => number][] = [
      ['the pattern', timed((text) => text.replace(re, ''))],
    ];
    if (prescan !== undefined) scans.push(["its layer's prescan", timed(prescan)]);
    for (const [what, millis] of scans) {
      millis(grown(1024));
      const quarter = millis(grown(256 * 1024));
      const full = millis(grown(1024 * 1024));
      expect(
        full,
        `${what}: ${quarter.toFixed(1)} ms → ${full.toFixed(1)} ms on recheck's attack, grown`,
      ).toBeLessThanOrEqual(Math.max(8 * quarter, 250));
    }
  });
});
