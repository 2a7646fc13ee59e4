import type { CheckedRule } from './personal-data.js';
import { CHECKED_SECRET_RULES, PERSONAL_DATA_RULES } from './personal-data.js';
import { SECRET_PATTERNS } from './secret-rules.js';

/** What a masked secret is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * Default secret shapes (see secret-rules.ts for their sources). A pattern with a capture group
 * named `keep` keeps that part (a `password=` prefix, a `Bearer ` scheme) and masks the rest.
 */
export const DEFAULT_SCRUB_PATTERNS: readonly RegExp[] = SECRET_PATTERNS;

/** Masks secrets in free text before it leaves the process. */
export type Scrubber = (text: string) => string;

export interface ScrubberOptions {
  /** Also mask payment card numbers (Luhn-checked) and e-mail addresses. Default: true. */
  readonly personalData?: boolean;
}

/**
 * A scrubber for `patterns`, plus the checked rules: 40-character keys without a prefix and, unless
 * turned off, personal data.
 */
export function createScrubber(
  patterns: readonly RegExp[],
  options: ScrubberOptions = {},
): Scrubber {
  const compiled = patterns.map((p) => (p.global ? p : new RegExp(p.source, `${p.flags}g`)));
  const checked: readonly CheckedRule[] = [
    ...CHECKED_SECRET_RULES,
    ...(options.personalData === false ? [] : PERSONAL_DATA_RULES),
  ];
  const mask = (...args: unknown[]): string => {
    const groups = args.at(-1);
    const keep =
      typeof groups === 'object' && groups !== null
        ? (groups as { keep?: string }).keep
        : undefined;
    return `${keep ?? ''}${REDACTED}`;
  };
  return (text) => {
    let out = text;
    for (const pattern of compiled) {
      pattern.lastIndex = 0;
      out = out.replace(pattern, mask);
    }
    for (const rule of checked) {
      rule.pattern.lastIndex = 0;
      out = out.replace(rule.pattern, (match) => (rule.check(match) ? REDACTED : match));
    }
    return out;
  };
}
