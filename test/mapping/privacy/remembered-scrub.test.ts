// A remembered answer must be the one scrubbing again would give, for any order of texts: the
// machine draws sequences from a small pool (so that texts repeat, near and far apart) of
// secrets, near-misses, ordinary errors and texts too long to be remembered, and every answer is
// held to the scrubber's own on the same text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCRUB_PATTERNS } from '../../../src/index.js';
import {
  MAX_REMEMBERED_CHARS,
  REMEMBERED_TEXTS,
  rememberScrubbed,
} from '../../../src/mapping/privacy/remembered-scrub.js';
import { createScrubbers } from '../../../src/mapping/privacy/scrub.js';

const { text: scrub } = createScrubbers(DEFAULT_SCRUB_PATTERNS);

const piece = fc.oneof(
  fc.constantFrom(
    'timeout after 3000 ms (db password=hunter2)',
    'password=',
    'Authorization: Bearer ',
    'sk-proj-',
    'AKIA',
    'ghp_',
    'consecutive duplicate: read_file called 3 times',
    'card 4111 1111 1111 1111',
    'mail ada@example.com',
    '%70assword%3Dswordfish',
    '{"api_key": "',
    '"}',
    ' ',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
);
const text = fc.oneof(
  { weight: 9, arbitrary: fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => p.join('')) },
  // Too long to be remembered: scrubbed each time, by the same rules.
  {
    weight: 1,
    arbitrary: piece.map((p) => `${p} ${'x'.repeat(MAX_REMEMBERED_CHARS)} password=hunter2`),
  },
);

describe('rememberScrubbed', () => {
  it('answers every text as the scrubber does, in any order, repeated or not', () => {
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 200 }),
        (pool, picks) => {
          const remembered = rememberScrubbed(scrub);
          for (const pick of picks) {
            const t = pool[pick % pool.length]!;
            expect(remembered(t)).toBe(scrub(t));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('scrubs a short text once while it is remembered, a long one every time', () => {
    const seen: string[] = [];
    const remembered = rememberScrubbed((t) => {
      seen.push(t);
      return scrub(t);
    });
    const short = 'tool failed: password=hunter2';
    const long = `${'y'.repeat(MAX_REMEMBERED_CHARS)} token=abc`;
    for (let i = 0; i < 5; i += 1) {
      expect(remembered(short)).toBe('tool failed: password=[REDACTED]');
      expect(remembered(long)).toBe(scrub(long));
    }
    expect(seen.filter((t) => t === short)).toHaveLength(1);
    expect(seen.filter((t) => t === long)).toHaveLength(5);
  });

  it('remembers at most REMEMBERED_TEXTS texts, starting over when full', () => {
    let calls = 0;
    const remembered = rememberScrubbed((t) => {
      calls += 1;
      return t;
    });
    for (let i = 0; i < REMEMBERED_TEXTS; i += 1) remembered(`error ${i}`);
    expect(calls).toBe(REMEMBERED_TEXTS);
    remembered('error 0');
    expect(calls).toBe(REMEMBERED_TEXTS);
    // One text more: the memory starts over with it, and the first texts are scrubbed again.
    remembered('one more');
    remembered('one more');
    remembered('error 0');
    expect(calls).toBe(REMEMBERED_TEXTS + 2);
  });
});
