// Credentials known by their context rather than their shape: the value of a name that says it is
// a credential (in any spelling: `appSecret=`, `PGPASSWORD=`, `"api-key": "…"`, `token => …`,
// `--password VALUE`, `?access_token=…`, and in prose, `the password is …`), every authorization
// header whatever its scheme, every cookie, the password of a URL up to the last `@` before its
// host, and of a command's `-u user:password`; a name and its value with nothing between or in two
// places (`.netrc`, SQL, XML, property and environment lists), and the ways commands and languages
// take one (one-dash flags, setters, registry logins, `.pgpass`). A quoted value is masked whole.
// Every pattern runs in linear time: each repeated run is bounded, and a name cannot start inside
// a run of name characters (test/mapping/privacy/scrub-linear.test.ts).
import {
  type ContextRule,
  isPairValue,
  isProseValue,
  isValue,
  keepingRule,
  namedRule,
} from './context-rule.js';
import { CREDENTIAL_STEMS, isCredentialKey, nameWords } from './credential-key.js';

export { type ContextRule, VALUE_PATTERN } from './context-rule.js';

/** First words of a function that takes a credential's value. */
const SETTERS = new Set(['set', 'with', 'use', 'put', 'update', 'change', 'reset']);

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

/** A container registry's login command, whose `-p` is its password. */
const REGISTRY_LOGIN = String.raw`(?:docker|podman|nerdctl|buildah|skopeo|helm\s{1,8}registry|oras)\s{1,8}login`;

/**
 * A password given to a database or remote-shell client on its command line, where the flag is
 * the client's own and too short to tell anywhere else: `mysql … -pSECRET` (glued, as the MySQL
 * and MariaDB clients take it), `redis-cli … -a SECRET`, `docker login … -p SECRET` (and the other
 * registry clients'), `sshpass -p SECRET`. (`gcc -pthread`, `mkdir -p` and `ssh -p 2222` are no
 * client of these.)
 */
const CLIENT_PASSWORD = new RegExp(
  String.raw`(?<keep>(?<![A-Za-z0-9_-])(?:(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mariadb-admin)${ARGUMENTS}-p|(?:redis-cli${ARGUMENTS}-a|${REGISTRY_LOGIN}${ARGUMENTS}-p|sshpass\s{1,8}-p)\s{1,8}))(?<password>[^\s"'|;&]{1,256})`,
  'g',
);

/** A name's stems where a name and its value have nothing between (`connection string …`). */
const PAIR_STEMS = [...CREDENTIAL_STEMS, 'string'].join('|');

/** An element's or a field's value, where its name is a credential's. */
const isNamedValue = ({ name = '', value = '' }: Readonly<Record<string, string | undefined>>) =>
  isCredentialKey(name) && isValue(value.trim()) && !value.startsWith('[REDACTED');

export const CONTEXT_RULES: readonly ContextRule[] = Object.freeze([
  // PowerShell's `ConvertTo-SecureString 'secret' -AsPlainText`: the string is the secret
  // (first: an assignment or flag before it would take the command's name for its value).
  keepingRule(
    'secure_string',
    /convertto-securestring/i,
    /(?<keep>(?<![A-Za-z0-9_-])convertto-securestring\s{1,8}(?:-string\s{1,8})?)(?:"[^"\n]{1,512}"|'[^'\n]{1,512}'|[^\s"'$(|;]{1,512})/gi,
  ),
  // `Authorization: <anything>` (any scheme: Bearer, Basic, Token, Digest, AWS4-HMAC-SHA256, a
  // bare key; a known scheme's name is kept), `Proxy-Authorization`. `X-Api-Key:`-style headers
  // are credential names like any other (below).
  keepingRule(
    'authorization_header',
    /authorization/i,
    /(?<keep>(?<![A-Za-z0-9_-])(?:proxy-)?authorization["']?\s{0,8}[:=]\s{0,8}["']?(?:(?:bearer|basic|digest|negotiate|token|bot|apikey|sso-key|aws4-hmac-sha256)\s{1,8})?)[^\s"'][^\r\n"']{0,2047}/gi,
  ),
  // `Cookie:` and `Set-Cookie:` headers: every value on the line.
  keepingRule(
    'cookie_header',
    /cookie/i,
    /(?<keep>(?<![A-Za-z0-9_-])(?:set-)?cookie["']?\s{0,8}:\s{0,8})[^\r\n]{1,4096}/gi,
  ),
  // An authorization scheme written out in any case (`Bearer x`, `basic x`, `Digest x`): a
  // credential has a digit or a base64 symbol, prose after the word does not.
  keepingRule(
    'authorization_scheme',
    /bearer|basic|digest|negotiate/i,
    /(?<keep>(?<![A-Za-z0-9_-])(?:bearer|basic|digest|negotiate)\s{1,8})(?=[A-Za-z0-9._~+/=-]{0,1024}[0-9+/=])[A-Za-z0-9._~+/=-]{8,1024}/gi,
  ),
  // `scheme://user:password@host`: the password up to the last `@` before the host.
  keepingRule(
    'url_password',
    /:\/\//,
    /(?<keep>(?<![A-Za-z0-9+.-])[a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]{0,128}:)[^\s]{1,512}(?=@[^\s@/?#]{1,253}(?:[/?#\s"'<>)]|$))/gi,
  ),
  // `--password VALUE`, `--api-key=VALUE`, and with one dash (`-token=…`: Go; Java's
  // `-Dssl.keyStorePassword=…`; PowerShell's `-Password '…'`). A one-dash flag then a space may be
  // a cluster of letters in prose (`grep -Pw with`, `-session versions`): its bare value must look
  // like a secret. `-p VALUE` is too short to tell and left alone.
  namedRule(
    'credential_flag',
    /(?:^|[^A-Za-z0-9_-])-/,
    /(?<![A-Za-z0-9_-])(?<dashes>--?)(?<name>[A-Za-z][A-Za-z0-9_.-]{0,62}[A-Za-z0-9_])(?<sep>=|\s{1,8})/g,
    (value, { dashes, sep }) =>
      dashes === '--' || sep === '=' || /^["']/.test(value) ? isValue(value) : isPairValue(value),
  ),
  // `name = value`, `name: value`, `"name": "value"`, `name => value`, `?name=value&`.
  namedRule(
    'credential_assignment',
    /[:=]/,
    /(?<![A-Za-z0-9_.-])(?<name>[A-Za-z_][A-Za-z0-9_.-]{0,63})["']?\s{0,8}(?:=>|:=|:(?!:)|=(?!=+\s))\s{0,8}/g,
  ),
  // Prose: `my password is …`, `the API key was set to …` (a name of up to two words).
  namedRule(
    'credential_prose',
    /(?:is|was|to)\s/i,
    /(?<![A-Za-z0-9_.-])(?<name>(?:[A-Za-z][A-Za-z0-9_-]{0,31} )?[A-Za-z_][A-Za-z0-9_.-]{0,63})\s{1,8}(?:(?:is|was)(?:\s{1,8}(?:set|changed|reset)\s{1,8}to)?|(?:set|changed|reset)\s{1,8}to)\s{1,8}/gi,
    isProseValue,
  ),
  // A name and its value with nothing between: `password Xy9…` (`.netrc`), `auth token 9f8e…`,
  // `PASSWORD 'n3w…'` (SQL), `connection string …`; the value must look like a secret
  // (`isPairValue`), the name must be a credential's (`string` alone is not).
  namedRule(
    'credential_pair',
    new RegExp(PAIR_STEMS, 'i'),
    new RegExp(
      String.raw`(?<![A-Za-z0-9_./-])(?<name>(?:[A-Za-z][A-Za-z0-9_-]{0,31} )?[A-Za-z0-9_.-]{0,40}(?:${PAIR_STEMS})[A-Za-z0-9_.-]{0,40})(?<![.-])\s{1,8}`,
      'gi',
    ),
    isPairValue,
    (name) => nameWords(name).at(-1) !== 'pass', // `Pass stage1_args to make`: a verb
  ),
  // SQL's `IDENTIFIED BY 'secret'` (MySQL, MariaDB, Oracle), `IDENTIFIED WITH plugin BY '…'`.
  keepingRule(
    'sql_identified_by',
    /identified/i,
    /(?<keep>(?<![A-Za-z0-9_])identified\s{1,8}(?:with\s{1,8}[A-Za-z0-9_]{1,64}\s{1,8})?by\s{1,8}(?:password\s{1,8})?)'[^'\n]{1,512}'/gi,
  ),
  // An element named as a credential: `<password>…</password>`, `<ns:clientSecret>…</…>`.
  keepingRule(
    'credential_element',
    /<\//,
    /(?<keep><(?<name>[A-Za-z_][A-Za-z0-9_.:-]{0,63})(?:\s[^<>]{0,256})?>)(?<value>[^<]{1,1024})(?=<\/)/g,
    isNamedValue,
  ),
  // A credential's name and its value in two elements: `<key>apiToken</key><string>…</string>`
  // (property lists), `<key>…</key><value>…</value>`.
  keepingRule(
    'credential_key_element',
    /<\/(?:key|name)>/i,
    /(?<keep><(?:key|name)>(?<name>[A-Za-z_][A-Za-z0-9_.:-]{0,63})<\/(?:key|name)>\s{0,16}<(?:value|string|data)>)(?<value>[^<]{1,1024})(?=<\/)/gi,
    isNamedValue,
  ),
  // A quoted value given to a credential's setter, `setApiKey("…")`, `client.withToken('…')`, or to
  // SQL's `PASSWORD('…')`; any other call's argument may be a name (`getSecret("db-password")`,
  // `auth("admin-panel")`) and stays.
  namedRule(
    'credential_call',
    /\(/,
    /(?<![A-Za-z0-9_$])(?<name>[A-Za-z_$][A-Za-z0-9_$]{0,63})\s{0,4}\(\s{0,8}/g,
    (value) => /^["']/.test(value) && isValue(value),
    (name) => /^[A-Z_]+$/.test(name) || SETTERS.has(nameWords(name)[0] ?? ''),
  ),
  // A credential's name and its value in two fields: `name="DB_PASSWORD" value="…"` (XML and HTML
  // attributes), `- name: DB_PASSWORD⏎  value: …` (Kubernetes, compose), `Name=… Value=…`.
  namedRule(
    'credential_name_value',
    /value/i,
    /(?<![A-Za-z0-9_-])["']?(?:name|key)["']?\s{0,8}[:=]\s{0,8}["']?(?<name>[A-Za-z_][A-Za-z0-9_.-]{0,63})["']?\s{0,8},?\s{1,16}(?:-\s{1,8})?["']?value["']?\s{0,8}[:=]\s{0,8}/gi,
  ),
  keepingRule('user_password_flag', /(?:^|[^A-Za-z0-9_-])-[uUa-]/, USER_PASSWORD, isUserPassword),
  // A `.pgpass` line, `host:port:database:user:password` (`*` for any of the first four); a
  // password of fewer than four characters is more likely a ratio's end (`4:4:4->4:2:0`).
  keepingRule(
    'pgpass_line',
    /:[\d*]/,
    /(?<keep>(?<![^\s"'])[A-Za-z0-9.*_-]{1,253}:(?:\d{1,5}|\*):[^\s:"']{1,63}:[^\s:"']{1,63}:)(?<password>[^\s"']{4,256})(?=[\s"']|$)/g,
    ({ password = '' }) => !PLACEHOLDER.test(password) && !password.startsWith('[REDACTED'),
  ),
  keepingRule(
    'client_password_flag',
    /mysql|mariadb|redis-cli|login|sshpass/,
    CLIENT_PASSWORD,
    ({ password = '' }) => !PLACEHOLDER.test(password),
  ),
]);
