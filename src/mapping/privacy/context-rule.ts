// The pieces the context rules are made of: what counts as a credential's value (after an
// assignment, in prose, with nothing between) and the two kinds of rule (one that keeps a prefix
// and masks the rest of its match, one that reads a value after a credential's name).
import { isCredentialKey } from './credential-key.js';
import { REDACTED } from './scrub-value.js';

/** A rule over a whole text. */
export interface ContextRule {
  readonly name: string;
  /**
   * What every text its pattern matches holds (a word or a character the pattern cannot match
   * without), found in one quick scan: where it is not found, the rule is skipped.
   */
  readonly requires: RegExp;
  /** The pattern it scans with (its value, if any, read with `VALUE_PATTERN`). */
  readonly pattern: RegExp;
  apply(text: string): string;
}

/** A value after a credential's name: quoted (whole, spaces and all) or up to a delimiter. */
export const VALUE_PATTERN = /"(?:[^"\\\n]|\\.){0,1024}"|'[^'\n]{0,1024}'|[^\s"'&,;)}\]]{1,1024}/y;

/** Values that name a type or a state, not a credential (`token: string`, `password = None`). */
const NOT_SECRET = new Set([
  'string',
  'number',
  'boolean',
  'bool',
  'str',
  'int',
  'bytes',
  'undefined',
  'null',
  'nil',
  'none',
  'true',
  'false',
  'any',
  'unknown',
  'object',
  'void',
  'never',
  'required',
  'optional',
  'redacted',
  'hidden',
  'masked',
  'unset',
  'empty',
  'missing',
  'invalid',
  'expired',
  'yes',
  'no',
]);

/** Whether a value after a credential's name is worth masking. */
export function isValue(value: string): boolean {
  const bare = value.replace(/^["'`]|["'`,;]$/g, '');
  if (bare.length < 4) return false;
  return !NOT_SECRET.has(bare.toLowerCase().replace(/[[\]<>()*.]/g, ''));
}

/**
 * Whether a value in prose after a credential's name (`the password is …`) is one: prose says
 * `is incorrect` or `was rotated` there as often, so a plain word is not (a digit or a symbol, a
 * capital past the first letter, or 16 characters or more make it one).
 */
export function isProseValue(value: string): boolean {
  const bare = value.replace(/^["'`]|["'`,;.:!?]+$/g, '');
  return (
    isValue(bare) &&
    bare.length >= 6 &&
    (/[^A-Za-z]/.test(bare) || /[A-Z]/.test(bare.slice(1)) || bare.length >= 16)
  );
}

/**
 * Whether a value written after a credential's name with nothing between (`password Xy9…` in a
 * `.netrc`, `auth token 9f8e…`, SQL's `PASSWORD '…'`) is one: prose puts any word there (`[token
 * "grandChild"]`), so it takes a secret's make-up, quoted or not: 8 characters or more with a digit
 * and three letters, and no date, time or version (`session 2024-05-01T12:00:00Z`, `token
 * v2.3.1-beta`); never a reference in brackets (`session (#1234abc)`).
 */
export function isPairValue(value: string): boolean {
  const bare = value.replace(/^["']|["',;.:!?]+$/g, '');
  return (
    /^["'A-Za-z0-9]/.test(value) &&
    isValue(bare) &&
    bare.length >= 8 &&
    /\d/.test(bare) &&
    (bare.match(/[A-Za-z]/g)?.length ?? 0) >= 3 &&
    !/^v?\d{1,4}(?:[-.:/T]\d{1,4}){1,6}(?:[-+.A-Za-z0-9]{0,24})$/.test(bare)
  );
}

/** An authorization scheme's name: the credential after it is the scheme rules' to mask. */
const SCHEME =
  /^["']?(?:bearer|basic|digest|negotiate|token|bot|apikey|sso-key|aws4-hmac-sha256)["']?$/i;

/** A rule that scans a text with `scan` (its pattern from the start) where `requires` is found. */
function gatedRule(
  name: string,
  requires: RegExp,
  pattern: RegExp,
  scan: (text: string) => string,
): ContextRule {
  const apply = (text: string): string => {
    if (!requires.test(text)) return text;
    pattern.lastIndex = 0;
    return scan(text);
  };
  return { name, requires, pattern, apply };
}

/** Masks what a pattern matches, keeping its `keep` group, where `masks` says its groups are one. */
export function keepingRule(
  name: string,
  requires: RegExp,
  pattern: RegExp,
  masks: (groups: Readonly<Record<string, string | undefined>>) => boolean = () => true,
): ContextRule {
  return gatedRule(name, requires, pattern, (text) =>
    text.replace(pattern, (whole: string, ...args: unknown[]) => {
      const groups = args.at(-1) as Record<string, string | undefined>;
      return masks(groups) ? `${groups['keep'] ?? ''}${REDACTED}` : whole;
    }),
  );
}

/**
 * Masks the value after each name that says it is a credential. `pattern` finds a name and its
 * separator (group `name`); the value is read only after a credential's name, so the scan stays
 * linear and a value that is itself `name=value` text is read as such.
 */
export function namedRule(
  name: string,
  requires: RegExp,
  pattern: RegExp,
  worth: (value: string, groups: Readonly<Record<string, string | undefined>>) => boolean = isValue,
  named: (name: string) => boolean = () => true,
): ContextRule {
  return gatedRule(name, requires, pattern, (text) => {
    let out = '';
    let from = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const key = m.groups?.['name'] ?? '';
      const valueAt = m.index + m[0].length;
      VALUE_PATTERN.lastIndex = valueAt;
      const value = isCredentialKey(key) && named(key) ? VALUE_PATTERN.exec(text)?.[0] : undefined;
      if (
        value === undefined ||
        value.startsWith('[REDACTED') ||
        SCHEME.test(value) ||
        !worth(value, m.groups ?? {})
      ) {
        // Not this one; a name may still start inside it (`deploy connection string …`).
        pattern.lastIndex = m.index + 1;
        continue;
      }
      out += `${text.slice(from, valueAt)}${REDACTED}`;
      from = valueAt + value.length;
      pattern.lastIndex = from;
    }
    return from === 0 ? text : out + text.slice(from);
  });
}
