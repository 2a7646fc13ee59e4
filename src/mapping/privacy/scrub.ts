// The scrubber: defence in depth, each layer in a file of its own and tested on its own
// (docs/reliability.md lists them with examples and limits).
//  1. Structure before text (scrub-value.ts): JSON in a string is walked as structure; the whole
//     value under a credential key is masked, whatever its type.
//  2. Issuers' shapes (secret-rules.ts): vendor prefixes and lengths.
//  3. Context (context-rules.ts): credential names in any spelling, authorization headers of any
//     scheme, cookies, URL passwords; quoted values whole.
//  4. What no rule names (high-entropy.ts): tokens that look random.
//  5. Checked shapes (personal-data.ts): unlabelled 40-character keys; payment cards, IBANs,
//     national ids and e-mail addresses unless personal data is kept.
// Then once more on the text decoded (decode.ts): JSON escapes, URL escapes.
import { CONTEXT_RULES } from './context-rules.js';
import { decodeUrl, unescapeJson } from './decode.js';
import { maskHighEntropy } from './high-entropy.js';
import { createPrescan } from './prescan.js';
import type { CheckedRule } from './personal-data.js';
import { CHECKED_SECRET_RULES, PERSONAL_DATA_RULES } from './personal-data.js';
import { REDACTED, scrubString } from './scrub-value.js';
import { SECRET_PATTERNS } from './secret-rules.js';

export { REDACTED };

/**
 * Default secret shapes (see secret-rules.ts for their sources). A pattern with a capture group
 * named `keep` keeps that part (a `password=` prefix, a `Bearer ` scheme) and masks the rest.
 */
export const DEFAULT_SCRUB_PATTERNS: readonly RegExp[] = SECRET_PATTERNS;

/** Masks secrets in free text before it leaves the process. */
export type Scrubber = (text: string) => string;

export interface ScrubberOptions {
  /** Also mask personal data (payment cards, IBANs, US social security numbers, e-mail addresses). Default: true. */
  readonly personalData?: boolean;
}

/** The scrubbers of one sink. */
export interface Scrubbers {
  /** Free text and captured content: every layer. */
  readonly text: Scrubber;
  /**
   * Names and ids (provider, model and tool names; call, message and session ids): every layer but
   * structure (their shape is held apart). Ids with a provider's id prefix (`call_`, `toolu_`,
   * `msg_`, …) are not taken for random keys.
   */
  readonly name: Scrubber;
}

/** The text scrubber for `patterns` (the issuers' shapes) and every other layer. */
export function createScrubber(
  patterns: readonly RegExp[],
  options: ScrubberOptions = {},
): Scrubber {
  return createScrubbers(patterns, options).text;
}

export function createScrubbers(
  patterns: readonly RegExp[],
  options: ScrubberOptions = {},
): Scrubbers {
  const compiled = patterns.map((p) => (p.global ? p : new RegExp(p.source, `${p.flags}g`)));
  const checked: readonly CheckedRule[] = [
    ...CHECKED_SECRET_RULES,
    ...(options.personalData === false ? [] : PERSONAL_DATA_RULES),
  ];
  const keepPrefix = (...args: unknown[]): string => {
    const groups = args.at(-1);
    const keep =
      typeof groups === 'object' && groups !== null
        ? (groups as { keep?: string }).keep
        : undefined;
    return `${keep ?? ''}${REDACTED}`;
  };
  // Each layer is skipped where one scan shows that none of its patterns matches (prescan.ts).
  const anyShape = createPrescan(compiled);
  // A context rule's pattern cannot match without its requirement: one scan for those.
  const anyContext = createPrescan(CONTEXT_RULES.map((rule) => rule.requires));
  const anyChecked = createPrescan(checked.map((rule) => rule.pattern));
  const rules = (text: string): string => {
    let out = text;
    if (anyShape(out))
      for (const pattern of compiled) {
        pattern.lastIndex = 0;
        out = out.replace(pattern, keepPrefix);
      }
    if (anyContext(out)) for (const rule of CONTEXT_RULES) out = rule.apply(out);
    out = maskHighEntropy(out);
    if (anyChecked(out))
      for (const rule of checked) {
        rule.pattern.lastIndex = 0;
        out = out.replace(rule.pattern, (match) => (rule.check(match) ? REDACTED : match));
      }
    return out;
  };
  /** `scan` on the text, then on the text decoded; decoded wins when it hid a secret. */
  const decoding =
    (scan: (text: string) => string): Scrubber =>
    (text) => {
      let out = scan(text);
      for (const decode of [unescapeJson, decodeUrl]) {
        const decoded = decode(out);
        if (decoded === undefined) continue;
        const masked = scan(decoded);
        if (masked !== decoded) out = masked;
      }
      return out;
    };
  const text = decoding((value) => scrubString(value, rules));
  const name = decoding(rules);
  return { text, name };
}
