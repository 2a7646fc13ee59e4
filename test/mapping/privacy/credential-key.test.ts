// The stems that find credential names in prose before `isCredentialKey` is asked: a name the
// filter passes over is never masked, so every credential name must hold one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CREDENTIAL_STEMS,
  CREDENTIAL_VOCABULARY,
  isCredentialKey,
} from '../../../src/mapping/privacy/credential-key.js';
import { credentialKey } from '../../helpers/secret-values.js';

const holdsStem = (name: string) => CREDENTIAL_STEMS.some((s) => name.toLowerCase().includes(s));

describe('credential stems', () => {
  it('are held by every word that makes a name a credential', () => {
    expect(CREDENTIAL_VOCABULARY.filter((w) => !holdsStem(w))).toEqual([]);
  });

  it('are held by every generated credential name, in every spelling', () => {
    fc.assert(
      fc.property(credentialKey, (name) => {
        expect(isCredentialKey(name)).toBe(true);
        expect(holdsStem(name)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('are held by every name of random words that is a credential', () => {
    const word = fc.oneof(
      fc.constantFrom(...CREDENTIAL_VOCABULARY, 'db', 'my', 'app', 'x', 'new', 'old'),
      fc.stringMatching(/^[a-z]{1,8}$/),
    );
    const name = fc
      .tuple(fc.array(word, { minLength: 1, maxLength: 4 }), fc.constantFrom('_', '-', '', '.'))
      .map(([words, sep]) => words.join(sep));
    fc.assert(
      fc.property(name, (n) => {
        if (isCredentialKey(n)) expect(holdsStem(n), n).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });
});
