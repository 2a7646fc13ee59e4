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
