// Scrubbing in linear time, per layer: each scrub layer (the context rules, high-entropy masking,
// credential key names, JSON and URL unescaping, and the whole text and name scrubbers) timed on
// adversarial text (runs of what each pattern starts with, repeated prefixes, near-misses) of a
// quarter and of the full size; the worst ratio over the pieces is printed (linear: about 4×;
// quadratic: about 16×). The regular expressions themselves are judged by a ReDoS checker in
// test/mapping/privacy/scrub-linear.test.ts.
import { performance } from 'node:perf_hooks';
import { DEFAULT_SCRUB_PATTERNS } from '../dist/index.js';
import { CONTEXT_RULES } from '../dist/mapping/privacy/context-rules.js';
import { isCredentialKey } from '../dist/mapping/privacy/credential-key.js';
import { decodeUrl, unescapeJson } from '../dist/mapping/privacy/decode.js';
import { maskHighEntropy } from '../dist/mapping/privacy/high-entropy.js';
import { createScrubbers } from '../dist/mapping/privacy/scrub.js';

export const PIECES = [
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

const fill = (piece, bytes) => piece.repeat(Math.ceil(bytes / piece.length));

function millis(run, text, repeats) {
  let best = Infinity;
  for (let i = 0; i < repeats; i += 1) {
    const start = performance.now();
    run(text);
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/** The worst full ÷ quarter ratio of each layer over the pieces, and the piece it was on. */
export function scrubLinearBench({ kib, repeats }) {
  const scrubbers = createScrubbers(DEFAULT_SCRUB_PATTERNS);
  const layers = [
    ...CONTEXT_RULES.map((r) => [`context rule ${r.name}`, (t) => r.apply(t)]),
    ['high-entropy tokens', maskHighEntropy],
    ['credential key names', isCredentialKey],
    ['JSON escapes undone', unescapeJson],
    ['URL escapes undone', decodeUrl],
    ['every layer (text)', scrubbers.text],
    ['every layer (names)', scrubbers.name],
  ];
  const results = [];
  for (const [name, run] of layers) {
    run(fill('a', 1024));
    let worst = { ratio: 0, piece: '', full: 0 };
    for (const piece of PIECES) {
      // Timings under 2 ms are mostly noise: a quarter is taken as at least that.
      const quarter = Math.max(millis(run, fill(piece, (kib * 1024) / 4), repeats), 2);
      const full = millis(run, fill(piece, kib * 1024), repeats);
      if (full / quarter > worst.ratio) worst = { ratio: full / quarter, piece, full };
    }
    results.push({ name, ...worst });
  }
  return results;
}
