// Credentials known by their context rather than their shape: the value of a name that says it is
// a credential (in any spelling: `appSecret=`, `PGPASSWORD=`, `"api-key": "…"`, `token => …`,
// `--password VALUE`, `?access_token=…`, and in prose, `the password is …`), every authorization
// header whatever its scheme, every cookie, the password of a URL up to the last `@` before its
// host, and of a command's `-u user:password`. A quoted value is masked whole, spaces and all.
// Every pattern runs in linear time: each repeated run is bounded, and a name cannot start inside
// a run of name characters (test/mapping/privacy/scrub-linear.test.ts).
import { isCredentialKey } from './credential-key.js';
import { REDACTED } from './scrub-value.js';

/** A rule over a whole text. */
export interface ContextRule {
  readonly name: string;
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
function isValue(value: string): boolean {
  const bare = value.replace(/^["'`]|["'`,;]$/g, '');
  if (bare.length < 4) return false;
  return !NOT_SECRET.has(bare.toLowerCase().replace(/[[\]<>()*.]/g, ''));
}

/**
 * Whether a value in prose after a credential's name (`the password is …`) is one: prose says
 * `is incorrect` or `was rotated` there as often, so a plain word is not (a digit or a symbol, a
 * capital past the first letter, or 16 characters or more make it one).
 */
function isProseValue(value: string): boolean {
  const bare = value.replace(/^["'`]|["'`,;.:!?]+$/g, '');
  return (
    isValue(bare) &&
    bare.length >= 6 &&
    (/[^A-Za-z]/.test(bare) || /[A-Z]/.test(bare.slice(1)) || bare.length >= 16)
  );
}

/** An authorization scheme's name: the credential after it is the scheme rules' to mask. */
const SCHEME =
  /^["']?(?:bearer|basic|digest|negotiate|token|bot|apikey|sso-key|aws4-hmac-sha256)["']?$/i;

/** Masks what a pattern matches, keeping its `keep` group, where `masks` says its groups are one. */
function keepingRule(
  name: string,
  pattern: RegExp,
  masks: (groups: Readonly<Record<string, string | undefined>>) => boolean = () => true,
): ContextRule {
  return {
    name,
    pattern,
    apply: (text) => {
      pattern.lastIndex = 0;
      return text.replace(pattern, (whole: string, ...args: unknown[]) => {
        const groups = args.at(-1) as Record<string, string | undefined>;
        return masks(groups) ? `${groups['keep'] ?? ''}${REDACTED}` : whole;
      });
    },
  };
}

/**
 * Masks the value after each name that says it is a credential. `pattern` finds a name and its
 * separator (group `name`); the value is read only after a credential's name, so the scan stays
 * linear and a value that is itself `name=value` text is read as such.
 */
function namedRule(name: string, pattern: RegExp, worth = isValue): ContextRule {
  return {
    name,
    pattern,
    apply: (text) => {
      pattern.lastIndex = 0;
      let out = '';
      let from = 0;
      for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
        if (!isCredentialKey(m.groups?.['name'] ?? '')) continue;
        const valueAt = m.index + m[0].length;
        VALUE_PATTERN.lastIndex = valueAt;
        const value = VALUE_PATTERN.exec(text)?.[0];
        if (
          value === undefined ||
          value.startsWith('[REDACTED') ||
          SCHEME.test(value) ||
          !worth(value)
        )
          continue;
        out += `${text.slice(from, valueAt)}${REDACTED}`;
        from = valueAt + value.length;
        pattern.lastIndex = from;
      }
      return from === 0 ? text : out + text.slice(from);
    },
  };
}

/** A password written as a placeholder (`user:password`, `user:<secret>`, `user:{pw}`, `-p…`). */
const PLACEHOLDER = /^(?:[<{%…]|(?:password|passwd|pass|pwd|pw|secret)\W*$)/i;

/**
 * `-u user:password` and its kin (curl's `--user` and `--proxy-user`, HTTPie's `--auth`): the
 * password, where it is neither the user again nor a number (`docker run -u app:app`, `-u 1000:1000`
 * name a user and a group) nor a placeholder.
 */
const USER_PASSWORD =
  /(?<keep>(?<![A-Za-z0-9_-])(?:-u|-U|--user|--proxy-user|-a|--auth)(?:=|\s{1,8})["']?(?<user>[^\s:"'@/]{1,128}):)(?<password>[^\s"']{1,512})/g;
const isUserPassword = ({
  user,
  password = '',
}: Readonly<Record<string, string | undefined>>): boolean =>
  password !== user &&
  !/^\d+$/.test(password) &&
  !PLACEHOLDER.test(password) &&
  !password.startsWith('[REDACTED');

/** A command's arguments before a flag: up to 16 words on the same command (no `|`, `;`, `&`). */
const ARGUMENTS = String.raw`(?:\s{1,8}[^\s|;&]{1,128}){0,16}?\s{1,8}`;

/**
 * A password given to a database or remote-shell client on its command line, where the flag is
 * the client's own and too short to tell anywhere else: `mysql … -pSECRET` (glued, as the MySQL
 * and MariaDB clients take it), `redis-cli … -a SECRET`, `sshpass -p SECRET`. (`gcc -pthread`,
 * `mkdir -p` and `ssh -p 2222` are no client of these.)
 */
const CLIENT_PASSWORD = new RegExp(
  String.raw`(?<keep>(?<![A-Za-z0-9_-])(?:(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mariadb-admin)${ARGUMENTS}-p|(?:redis-cli${ARGUMENTS}-a|sshpass\s{1,8}-p)\s{1,8}))(?<password>[^\s"'|;&]{1,256})`,
  'g',
);

export const CONTEXT_RULES: readonly ContextRule[] = Object.freeze([
  // `Authorization: <anything>` (any scheme: Bearer, Basic, Token, Digest, AWS4-HMAC-SHA256, a
  // bare key; a known scheme's name is kept), `Proxy-Authorization`. `X-Api-Key:`-style headers
  // are credential names like any other (below).
  keepingRule(
    'authorization_header',
    /(?<keep>(?<![A-Za-z0-9_-])(?:proxy-)?authorization["']?\s{0,8}[:=]\s{0,8}["']?(?:(?:bearer|basic|digest|negotiate|token|bot|apikey|sso-key|aws4-hmac-sha256)\s{1,8})?)[^\s"'][^\r\n"']{0,2047}/gi,
  ),
  // `Cookie:` and `Set-Cookie:` headers: every value on the line.
  keepingRule(
    'cookie_header',
    /(?<keep>(?<![A-Za-z0-9_-])(?:set-)?cookie["']?\s{0,8}:\s{0,8})[^\r\n]{1,4096}/gi,
  ),
  // An authorization scheme written out in any case (`Bearer x`, `basic x`, `Digest x`): a
  // credential has a digit or a base64 symbol, prose after the word does not.
  keepingRule(
    'authorization_scheme',
    /(?<keep>(?<![A-Za-z0-9_-])(?:bearer|basic|digest|negotiate)\s{1,8})(?=[A-Za-z0-9._~+/=-]{0,1024}[0-9+/=])[A-Za-z0-9._~+/=-]{8,1024}/gi,
  ),
  // `scheme://user:password@host`: the password up to the last `@` before the host.
  keepingRule(
    'url_password',
    /(?<keep>(?<![A-Za-z0-9+.-])[a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]{0,128}:)[^\s]{1,512}(?=@[^\s@/?#]{1,253}(?:[/?#\s"'<>)]|$))/gi,
  ),
  // `--password VALUE`, `--api-key=VALUE` (`-p VALUE` is too short to tell and left alone).
  namedRule(
    'credential_flag',
    /(?<![A-Za-z0-9_-])--(?<name>[A-Za-z][A-Za-z0-9_-]{0,63})(?:=|\s{1,8})/g,
  ),
  // `name = value`, `name: value`, `"name": "value"`, `name => value`, `?name=value&`.
  namedRule(
    'credential_assignment',
    /(?<![A-Za-z0-9_.-])(?<name>[A-Za-z_][A-Za-z0-9_.-]{0,63})["']?\s{0,8}(?:=>|:=|:(?!:)|=(?!=+\s))\s{0,8}/g,
  ),
  // Prose: `my password is …`, `the API key was set to …` (a name of up to two words).
  namedRule(
    'credential_prose',
    /(?<![A-Za-z0-9_.-])(?<name>(?:[A-Za-z][A-Za-z0-9_-]{0,31} )?[A-Za-z_][A-Za-z0-9_.-]{0,63})\s{1,8}(?:(?:is|was)(?:\s{1,8}(?:set|changed|reset)\s{1,8}to)?|(?:set|changed|reset)\s{1,8}to)\s{1,8}/gi,
    isProseValue,
  ),
  keepingRule('user_password_flag', USER_PASSWORD, isUserPassword),
  keepingRule(
    'client_password_flag',
    CLIENT_PASSWORD,
    ({ password = '' }) => !PLACEHOLDER.test(password),
  ),
]);
