// Whether a name (a JSON key, an environment variable, a flag, a query parameter, a cookie) says
// that its value is a credential, however it is spelled: `password`, `appSecret`, `PGPASSWORD`,
// `x-api-key`, `--client-secret`, `AUTH_TOKEN`, `sessionCookie`, `DATABASE_DSN`. Names of counts
// and kinds (`max_tokens`, `token_count`, `key_type`) are not credentials.

/** Words that name a credential wherever they stand in a name, even run together with others. */
const LONG_WORDS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'credential',
  'cookie',
  'signature',
  'privatekey',
  'accesskey',
  'secretkey',
  'connectionstring',
  'authorization',
  'session',
] as const;

/** Words that name a credential only as a word of their own (`pass`, not `passenger`). */
const SHORT_WORDS = new Set([
  'pwd',
  'pass',
  'pw',
  'auth',
  'sig',
  'dsn',

  'private',
  'bearer',
  'jwt',
  'otp',
  'salt',
  'credentials',
  'secrets',
  'cookies',
  'passwords',
  // Servers' own names for their password (redis.conf).
  'requirepass',
  'masterauth',
]);

/** `key` names a credential only beside one of these (`api_key`, `X-Api-Key`, `signingKey`). */
const KEY_QUALIFIERS = new Set([
  'api',
  'access',
  'secret',
  'private',
  'signing',
  'encryption',
  'master',
  'license',
  'auth',
  'client',
  'app',
  'account',
  'shared',
  'storage',
  'service',
  'subscription',
  'admin',
  'deploy',
  'ssh',
  'gpg',
  'pgp',
  'hmac',
  'webhook',
  'session',
  'x',
]);

/** Short words that also name a credential at the end of a run-together word (`PGDSN`, `dbpwd`). */
const SUFFIXES = ['pwd', 'dsn', 'jwt', 'otp'];
/** The same in an all-capitals name (an environment variable): `APPKEY`, `DBPASS`, `MYAUTH`. */
const CAPITAL_SUFFIXES = ['key', 'pass', 'auth', 'pin', 'sig', ...SUFFIXES];

/** Words that contain a credential word and name something else (`tokens` counts, in LLM usage). */
const NEUTRAL = new Set([
  'tokens',
  'tokenizer',
  'tokenize',
  'tokenized',
  'tokenization',
  'tokenizers',
]);

/** Words that, beside a credential word, make the name a count, kind or setting, not a secret. */
const NOT_A_VALUE = new Set([
  'count',
  'counts',
  'type',
  'types',
  'usage',
  'limit',
  'limits',
  'length',
  'len',
  'size',
  'budget',
  'estimate',
  'estimated',
  'max',
  'min',
  'total',
  'input',
  'output',
  'prompt',
  'completion',
  'reasoning',
  'cached',
  'cache',
  'remaining',
  'used',
  'expires',
  'expiry',
  'expiration',
  'ttl',
  'id',
  'ids',
  'name',
  'names',
  'path',
  'file',
  'dir',
  'directory',
  'folder',
  'mode',
  'method',
  'url',
  'uri',
  'endpoint',
  'field',
  'policy',
  'required',
  'enabled',
  'rotation',
  'version',
  'format',
  'algorithm',
  'alg',
  'strength',
  'hint',
  'env',
  'has',
  'is',
  'use',
  'num',
  'n',
]);

/**
 * Parts of which every credential name holds one, in any spelling but a word split inside itself
 * (`to_ken`): a quick filter where names are searched for in prose, before `isCredentialKey`.
 */
export const CREDENTIAL_STEMS: readonly string[] = Object.freeze([
  'pass',
  'pw',
  'secret',
  'token',
  'key',
  'auth',
  'cookie',
  'session',
  'credential',
  'sig',
  'dsn',
  'jwt',
  'otp',
  'salt',
  'bearer',
  'private',
  'connection',
  'pin',
]);

/** Every word that makes a name a credential's, for checking `CREDENTIAL_STEMS` against. */
export const CREDENTIAL_VOCABULARY: readonly string[] = Object.freeze([
  ...LONG_WORDS,
  ...SHORT_WORDS,
  ...CAPITAL_SUFFIXES,
  ...[...KEY_QUALIFIERS].map((q) => `${q}key`),
]);

const WORD_BOUNDARY = /[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;

/** The words of a name: split at separators and camel-case humps, lower-cased. */
export function nameWords(name: string): string[] {
  return name
    .slice(0, 128)
    .split(WORD_BOUNDARY)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** Whether `name` says its value is a credential (see the head of this file). */
export function isCredentialKey(name: string): boolean {
  const words = nameWords(name);
  if (words.length === 0 || words.length > 12) return false;
  const together = words.filter((w) => !NEUTRAL.has(w)).join('');
  const suffixes = /^[A-Z0-9_-]+$/.test(name) ? CAPITAL_SUFFIXES : SUFFIXES;
  let credential =
    LONG_WORDS.some((long) => together.includes(long)) ||
    (words.includes('key') && words.some((w) => KEY_QUALIFIERS.has(w)));
  for (const word of words) {
    if (NOT_A_VALUE.has(word)) return false;
    if (credential || NEUTRAL.has(word)) continue;
    if (
      SHORT_WORDS.has(word) ||
      suffixes.some((suffix) => word.length > suffix.length && word.endsWith(suffix))
    )
      credential = true;
    else for (const long of LONG_WORDS) if (word.includes(long)) credential = true;
  }
  return credential;
}
