// The parts secrets are made of, for the generated-secrets suite (test/helpers/secret-forms.ts):
// random key bodies, vendor-like prefixes, credential names in every spelling, and values as
// people type them.
import fc from 'fast-check';
import { ID_PREFIXES } from '../../src/mapping/privacy/high-entropy.js';

export const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A string of `min`–`max` characters of `alphabet`, uniformly chosen (no bias to short or repeated). */
export const chars = (alphabet: string, min: number, max: number) =>
  fc.noBias(
    fc
      .array(fc.integer({ min: 0, max: alphabet.length - 1 }), {
        minLength: min,
        maxLength: max,
      })
      .map((indexes) => indexes.map((i) => alphabet[i]).join('')),
  );

/** A random key body: base62 with every class present, as issuers' keys are. */
export const keyBody = fc
  .tuple(chars(B62, 21, 45), fc.nat(), fc.nat(), fc.nat())
  .map(([body, a, b, c]) => {
    const at = (n: number, s: string, ch: string) => {
      const i = n % s.length;
      return `${s.slice(0, i)}${ch}${s.slice(i)}`;
    };
    return at(c, at(b, at(a, body, 'Q'), 'q'), '7');
  });

/** Prefixes of providers' ids name ids, not keys: left out of vendor-like prefixes. */
export const prefix = chars('abcdefghijklmnopqrstuvwxyz', 2, 8).filter(
  (p) => !ID_PREFIXES.includes(p),
);

/** A credential word in a random spelling: camel, snake, kebab, run together, any case, affixes. */
export const CREDENTIAL_WORDS = [
  ['password'],
  ['passwd'],
  ['secret'],
  ['token'],
  ['api', 'key'],
  ['apikey'],
  ['access', 'token'],
  ['auth', 'token'],
  ['client', 'secret'],
  ['private', 'key'],
  ['credential'],
  ['credentials'],
  ['cookie'],
  ['session'],
  ['signature'],
  ['dsn'],
  ['connection', 'string'],
  ['passphrase'],
  ['pwd'],
] as const;
const AFFIXES = ['', 'db', 'app', 'x', 'my', 'github', 'pg', 'aws', 'stripe', 'openai'];
export const credentialKey = fc
  .tuple(
    fc.constantFrom(...CREDENTIAL_WORDS),
    fc.constantFrom(...AFFIXES),
    fc.constantFrom('camel', 'snake', 'kebab', 'together', 'upper-snake', 'upper-together'),
  )
  .map(([word, affix, style]) => {
    const words = [...(affix === '' ? [] : [affix]), ...word];
    switch (style) {
      case 'camel':
        return words.map((w, i) => (i === 0 ? w : `${w[0]!.toUpperCase()}${w.slice(1)}`)).join('');
      case 'snake':
        return words.join('_');
      case 'kebab':
        return words.join('-');
      case 'together':
        return words.join('');
      case 'upper-snake':
        return words.join('_').toUpperCase();
      case 'upper-together':
        return words.join('').toUpperCase();
    }
  });

/** A value a person would type: with symbols, and with spaces when quoted. */
export const plainValue = chars(`${B62}!#$*+/=.~-`, 12, 30);
export const spacedValue = chars(`${B62} !#$*+/=.~-`, 12, 30).filter((v) => v.trim().length >= 10);

/** A password as people type them where prose could stand: letters, a digit, then anything. */
export const pairValue = fc
  .tuple(chars('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 3, 6), plainValue)
  .map(([letters, rest]) => `${letters}7${rest.slice(0, 20)}`);
