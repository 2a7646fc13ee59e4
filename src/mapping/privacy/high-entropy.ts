// What no rule names: a token that looks random is masked, whoever issued it. Two shapes:
// - a prefixed key (`abc_`, `xyz-live_`, then 20+ letters and digits in both cases, not words);
// - any 20+ character base62/base64 token that mixes cases and digits, is not made of words, and
//   whose characters are spread (Shannon entropy and class changes).
// The thresholds were chosen on a measured corpus (docs/reliability.md): random tokens of 20, 32
// and 40 characters are caught 92, 98 and 99 % of the time (prefixed ones ≥ 99.99 %), and 0.06 %
// of 180 000 tokens of code, docs and type definitions are masked (base64 images, mostly).
// Identifiers the bridge exports stay: UUIDs and hex ids (trace, span, digests: hex is never masked
// here) and call or message ids with a provider's id prefix.
import { REDACTED } from './scrub-value.js';

/** Runs of token characters, 20 to 512 long, not starting inside a longer run (linear time). */
const CANDIDATE = /(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{20,512}(?![A-Za-z0-9+/_=-])/g;
/** A key with a prefix of its own: one or two short words, then the body. */
const PREFIXED = /^(?:[A-Za-z]{2,12}[_-]){1,2}(?<body>[A-Za-z0-9]{20,})$/;
/** Providers' prefixes of ids that are not secrets (tool calls, messages, responses, runs). */
export const ID_PREFIXES: readonly string[] = Object.freeze([
  'call',
  'toolu',
  'tool',
  'msg',
  'chatcmpl',
  'resp',
  'run',
  'req',
  'file',
  'asst',
  'thread',
  'step',
  'fc',
  'batch',
  'srvtoolu',
  'item',
]);
const ID_PREFIX = new RegExp(`^(?:${ID_PREFIXES.join('|')})[_-]`);
const WORD = /[A-Z]?[a-z]{3,}/g;

/** Masks every token that looks random (see above). */
export function maskHighEntropy(text: string): string {
  if (text.length < 20) return text;
  return text.replace(CANDIDATE, (token) => (looksRandom(token) ? REDACTED : token));
}

/** Whether a token looks like a random key (see the head of this file). */
export function looksRandom(token: string): boolean {
  if (ID_PREFIX.test(token)) return false;
  const prefixed = PREFIXED.exec(token);
  if (prefixed !== null) {
    const body = prefixed.groups!['body']!;
    return mixedClasses(body) && wordShare(body) <= 0.9;
  }
  const bare = token.replace(/=+$/, '');
  if (bare.length < 20 || !mixedClasses(bare)) return false;
  let separators = 0;
  let changes = 0;
  let previous = -1;
  for (let i = 0; i < bare.length; i += 1) {
    const kind = classOf(bare.charCodeAt(i));
    if (kind === 3) separators += 1;
    if (previous !== -1 && kind !== previous) changes += 1;
    previous = kind;
  }
  return (
    separators <= bare.length * 0.15 &&
    changes / (bare.length - 1) >= 0.4 &&
    wordShare(bare) <= 0.5 &&
    entropyShare(bare) >= 0.8
  );
}

/** 0 upper, 1 lower, 2 digit, 3 anything else. */
function classOf(code: number): number {
  if (code >= 65 && code <= 90) return 0;
  if (code >= 97 && code <= 122) return 1;
  if (code >= 48 && code <= 57) return 2;
  return 3;
}

function mixedClasses(text: string): boolean {
  return /[A-Z]/.test(text) && /[a-z]/.test(text) && /[0-9]/.test(text);
}

/** The share of characters inside word-like runs (`Word`, `word`, three letters or more). */
function wordShare(text: string): number {
  let inWords = 0;
  for (const match of text.matchAll(WORD)) inWords += match[0].length;
  return inWords / text.length;
}

/** Shannon entropy per character over its most there can be for the token's length. */
function entropyShare(text: string): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits / Math.log2(Math.min(text.length, 64));
}
