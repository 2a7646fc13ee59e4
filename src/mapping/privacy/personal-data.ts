// Shapes that need more than a pattern to tell them apart: a check on the matched text keeps
// false positives down. All patterns run in linear time (see secret-rules.ts).

/** A pattern whose matches are masked only when `check` says so. */
export interface CheckedRule {
  readonly name: string;
  readonly pattern: RegExp;
  readonly check: (match: string) => boolean;
}

/** Luhn's checksum over the digits of a text: true for a valid payment card number. */
export function luhn(text: string): boolean {
  let sum = 0;
  let double = false;
  let digits = 0;
  for (let i = text.length - 1; i >= 0; i -= 1) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) continue;
    digits += 1;
    let d = c;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits >= 13 && digits <= 19 && sum % 10 === 0;
}

/** Upper case, lower case and a digit: a random key, not a word, a path or a hex digest. */
function mixed(text: string): boolean {
  return /[A-Z]/.test(text) && /[a-z]/.test(text) && /[0-9]/.test(text);
}

/** Secrets without a prefix of their own. */
export const CHECKED_SECRET_RULES: readonly CheckedRule[] = Object.freeze([
  {
    // An AWS secret access key (or any 40-character base64 key) standing alone.
    name: 'unlabelled_40_char_key',
    pattern: /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])/g,
    check: mixed,
  },
]);

/** ISO 13616's check: the IBAN moved four characters on, letters as numbers, modulo 97 is 1. */
export function ibanChecks(text: string): boolean {
  const compact = text.replace(/ /g, '');
  if (compact.length < 15 || compact.length > 34) return false;
  const moved = `${compact.slice(4)}${compact.slice(0, 4)}`;
  let rest = 0;
  for (const c of moved) {
    const code = c.charCodeAt(0);
    const value = code >= 65 ? code - 55 : code - 48;
    rest = value >= 10 ? (rest * 100 + value) % 97 : (rest * 10 + value) % 97;
  }
  return rest === 1;
}

/** Personal data: payment cards (Luhn-checked), IBANs (checked), US SSNs, e-mail addresses. Opt-out. */
export const PERSONAL_DATA_RULES: readonly CheckedRule[] = Object.freeze([
  {
    name: 'payment_card',
    // Not inside a word or a dash-joined id (the all-digit groups of a UUID are not a card).
    pattern: /(?<![0-9A-Za-z_-])(?:[0-9][ -]?){12,18}[0-9](?![0-9A-Za-z_]|-[0-9A-Za-z])/g,
    check: luhn,
  },
  {
    name: 'iban',
    pattern:
      /(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![A-Za-z0-9])/g,
    check: ibanChecks,
  },
  {
    // A US social security number as written (area, group, serial): never 000, 666 or 9xx.
    name: 'us_ssn',
    pattern: /(?<![0-9-])(?!000|666|9[0-9]{2})[0-9]{3}-(?!00)[0-9]{2}-(?!0000)[0-9]{4}(?![0-9-])/g,
    check: () => true,
  },
  {
    name: 'email',
    pattern:
      /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}\b/g,
    check: () => true,
  },
]);
