// Credentials known by their context rather than their shape: the value of a name that says it is
// a credential (in any spelling: `appSecret=`, `PGPASSWORD=`, `"api-key": "…"`, `token => …`,
// `--password VALUE`, `?access_token=…`), every authorization header whatever its scheme, every
// cookie, and the password of a URL up to the last `@` before its host. A quoted value is masked
// whole, spaces and all. Every pattern runs in linear time: each repeated run is bounded, and a
// name cannot start inside a run of name characters (test/mapping/privacy/scrub-linear.test.ts).
import { isCredentialKey } from './credential-key.js';
import { REDACTED } from './scrub-value.js';

/** A pattern and what a match becomes. */
export interface ContextRule {
  readonly name: string;
  readonly pattern: RegExp;
  readonly replace: (match: string, groups: Readonly<Record<string, string | undefined>>) => string;
}

const VALUE = String.raw`(?<value>"(?:[^"\\\n]|\\.){0,1024}"|'[^'\n]{0,1024}'|[^\s"'&,;)}\]]{1,1024})`;

/** An authorization scheme's name: the credential after it is the scheme rules' to mask. */
const SCHEME =
  /^["']?(?:bearer|basic|digest|negotiate|token|bot|apikey|sso-key|aws4-hmac-sha256)["']?$/i;

/** Masks the value when the name says it is a credential (and it is not masked already). */
const keepName = (match: string, g: Readonly<Record<string, string | undefined>>) => {
  const value = g['value'] ?? '';
  if (value.startsWith('[REDACTED') || SCHEME.test(value) || !isCredentialKey(g['name'] ?? ''))
    return match;
  return `${g['keep'] ?? ''}${REDACTED}`;
};

export const CONTEXT_RULES: readonly ContextRule[] = Object.freeze([
  {
    // `Authorization: <anything>` (any scheme: Bearer, Basic, Token, Digest, AWS4-HMAC-SHA256, a
    // bare key; a known scheme's name is kept), `Proxy-Authorization`. `X-Api-Key:`-style headers
    // are credential names like any other (below).
    name: 'authorization_header',
    pattern:
      /(?<keep>(?<![A-Za-z0-9_-])(?:proxy-)?authorization["']?\s{0,8}[:=]\s{0,8}["']?(?:(?:bearer|basic|digest|negotiate|token|bot|apikey|sso-key|aws4-hmac-sha256)\s{1,8})?)[^\s"'][^\r\n"']{0,2047}/gi,
    replace: (_m, g) => `${g['keep'] ?? ''}${REDACTED}`,
  },
  {
    // `Cookie:` and `Set-Cookie:` headers: every value on the line.
    name: 'cookie_header',
    pattern: /(?<keep>(?<![A-Za-z0-9_-])(?:set-)?cookie["']?\s{0,8}:\s{0,8})[^\r\n]{1,4096}/gi,
    replace: (_m, g) => `${g['keep'] ?? ''}${REDACTED}`,
  },
  {
    // An authorization scheme written out in any case (`Bearer x`, `basic x`, `Digest x`): a
    // credential has a digit or a base64 symbol, prose after the word does not.
    name: 'authorization_scheme',
    pattern:
      /(?<keep>(?<![A-Za-z0-9_-])(?:bearer|basic|digest|negotiate)\s{1,8})(?=[A-Za-z0-9._~+/=-]{0,1024}[0-9+/=])[A-Za-z0-9._~+/=-]{8,1024}/gi,
    replace: (_m, g) => `${g['keep'] ?? ''}${REDACTED}`,
  },
  {
    // `scheme://user:password@host`: the password up to the last `@` before the host.
    name: 'url_password',
    pattern:
      /(?<keep>(?<![A-Za-z0-9+.-])[a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]{0,128}:)[^\s]{1,512}(?=@[^\s@/?#]{1,253}(?:[/?#\s"'<>)]|$))/gi,
    replace: (_m, g) => `${g['keep'] ?? ''}${REDACTED}`,
  },
  {
    // `--password VALUE`, `--api-key=VALUE`, `-p VALUE` is too short to tell and left alone.
    name: 'credential_flag',
    pattern: new RegExp(
      String.raw`(?<keep>(?<![A-Za-z0-9_-])--(?<name>[A-Za-z][A-Za-z0-9_-]{0,63})(?:=|\s{1,8}))${VALUE}`,
      'g',
    ),
    replace: keepName,
  },
  {
    // `name = value`, `name: value`, `"name": "value"`, `name => value`, `?name=value&`.
    name: 'credential_assignment',
    pattern: new RegExp(
      String.raw`(?<keep>(?<![A-Za-z0-9_.-])(?<name>[A-Za-z_][A-Za-z0-9_.-]{0,63})["']?\s{0,8}(?:=>|:=|[:=])\s{0,8})${VALUE}`,
      'g',
    ),
    replace: keepName,
  },
]);
