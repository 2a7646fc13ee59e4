// Every scrub pattern and layer runs in linear time: on 1 MiB of adversarial text (runs of what each pattern
// starts with, repeated prefixes, near-misses) it takes at most a few times what a quarter of that
// takes (a quadratic pattern takes 16×: seconds to minutes here). The minimum of five timings
// each, and a 250 ms floor, keep a busy machine from failing it; how fast scrubbing is, which a
// busy machine changes, is the benchmark's to say (`npm run bench`, the capture row).
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCRUB_PATTERNS } from '../../../src/index.js';
import { CONTEXT_RULES } from '../../../src/mapping/privacy/context-rules.js';
import { isCredentialKey } from '../../../src/mapping/privacy/credential-key.js';
import { decodeUrl, unescapeJson } from '../../../src/mapping/privacy/decode.js';
import { maskHighEntropy } from '../../../src/mapping/privacy/high-entropy.js';
import { createScrubbers } from '../../../src/mapping/privacy/scrub.js';
import {
  CHECKED_SECRET_RULES,
  PERSONAL_DATA_RULES,
} from '../../../src/mapping/privacy/personal-data.js';

const PIECES = [
  'a',
  'a.',
  'a-',
  'A1',
  '0 ',
  '1-',
  'a@',
  'a@a.',
  'a://',
  'a://u:',
  'a://u:p/',
  'eyJa',
  'eyJaaaaa-',
  'eyJaaaaa.eyJaaaaa-',
  'password=',
  'x_password ',
  'DB_',
  'Bearer ',
  'bearer',
  '-----BEGIN ',
  '-----BEGIN PRIVATE KEY-----',
  'sk-',
  'ghp_',
  'https://hooks.slack.com/services/',
  '1234567890:AA',
  'AAAA+/',
  'a1Q~',
  '~',
  'Basic ',
  'Basic aaaaaaaaa',
  ' ',
  '\\n',
  'a=',
  'a: "',
  "password: '",
  'password: "',
  'password: "\\',
  'Authorization: ',
  'authorization: bearer ',
  'Cookie: ',
  '--password ',
  '--a',
  'a://u:p@',
  'a://u:p@h@',
  'aB3',
  'aB3_',
  'abc_aB3x',
  'GB82WEST',
  'GB82 ',
  '123-45-',
  '%4',
  '%41',
  '\\u00',
  '\\u0067',
  '{"a":',
  '[',
];

const fill = (piece: string, bytes: number) => piece.repeat(Math.ceil(bytes / piece.length));

/** The best of five timings of `run` on `text`. */
function millis(run: RegExp | ((text: string) => unknown), text: string): number {
  const apply =
    typeof run === 'function'
      ? run
      : (() => {
          const re = new RegExp(run.source, run.flags);
          return (t: string) => t.replace(re, '');
        })();
  let best = Infinity;
  for (let i = 0; i < 5; i += 1) {
    const start = performance.now();
    apply(text);
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const scrubbers = createScrubbers(DEFAULT_SCRUB_PATTERNS);
const patterns: (readonly [string, RegExp | ((text: string) => unknown)])[] = [
  ...DEFAULT_SCRUB_PATTERNS.map((p) => [p.source.slice(0, 40), p] as const),
  ...[...CHECKED_SECRET_RULES, ...PERSONAL_DATA_RULES].map((r) => [r.name, r.pattern] as const),
  ...CONTEXT_RULES.map((r) => [r.name, (text: string) => r.apply(text)] as const),
  ['high-entropy tokens', maskHighEntropy],
  ['credential key names', (text: string) => isCredentialKey(text)],
  ['JSON escapes undone', unescapeJson],
  ['URL escapes undone', decodeUrl],
];
/** Whole scrubbers: 60-odd patterns a pass, timed on an eighth and a half of a MiB. */
const layered: (readonly [string, (text: string) => unknown])[] = [
  ['every layer (text)', scrubbers.text],
  ['every layer (names)', scrubbers.name],
];

describe('scrub patterns run in linear time', () => {
  it('tells a quadratic pattern apart (the URL-password pattern this replaced)', () => {
    // An eighth of the input against the whole: a linear pattern takes about 8×, a quadratic one
    // about 64×; the line between them at 24× leaves room for a busy machine either way.
    const quadratic = /(?<keep>[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi;
    const eighth = millis(quadratic, fill('a', 2 * 1024));
    const full = millis(quadratic, fill('a', 16 * 1024));
    expect(full).toBeGreaterThan(24 * eighth);
  });

  it.each(patterns)('%s', (_name, pattern) => {
    // A first call compiles and warms up: the timings are of the steady state.
    millis(pattern, fill('a', 1024));
    const slow: string[] = [];
    for (const piece of PIECES) {
      const quarter = millis(pattern, fill(piece, 256 * 1024));
      const full = millis(pattern, fill(piece, 1024 * 1024));
      if (full > Math.max(8 * quarter, 250))
        slow.push(`${JSON.stringify(piece)}: ${quarter.toFixed(1)} ms → ${full.toFixed(1)} ms`);
    }
    expect(slow).toEqual([]);
  });

  it.each(layered)(
    '%s',
    (_name, scrub) => {
      millis(scrub, fill('a', 1024));
      const slow: string[] = [];
      for (const piece of PIECES) {
        const quarter = millis(scrub, fill(piece, 128 * 1024));
        const full = millis(scrub, fill(piece, 512 * 1024));
        if (full > Math.max(8 * quarter, 250))
          slow.push(`${JSON.stringify(piece)}: ${quarter.toFixed(1)} ms → ${full.toFixed(1)} ms`);
      }
      expect(slow).toEqual([]);
    },
    120_000,
  );
});
