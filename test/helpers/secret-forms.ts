// Secrets as people write them, for the generated-secrets suite (test/mapping/privacy/
// secrets-property.test.ts): each form is a text and the part of it that must not leave the
// process, its name, value and spelling chosen by the machine.
import fc from 'fast-check';
import {
  B62,
  chars,
  CREDENTIAL_WORDS,
  credentialKey,
  keyBody,
  pairValue,
  plainValue,
  prefix,
  spacedValue,
} from './secret-values.js';

export interface Planted {
  readonly form: string;
  /** The text planted in every channel. */
  readonly text: string;
  /** The part of it that must not leave the process. */
  readonly secret: string;
}

const FORMS: fc.Arbitrary<Planted>[] = [
  fc
    .tuple(prefix, fc.constantFrom('_', '-', '_live_', '-test-'), keyBody)
    .map(([p, sep, body]) => ({
      form: 'vendor-like key',
      text: `${p}${sep}${body}`,
      secret: body,
    })),
  fc
    .tuple(credentialKey, fc.constantFrom('=', ': ', ' = ', '=>', ' => ', ':='), plainValue)
    .map(([key, sep, value]) => ({
      form: 'assignment',
      text: `${key}${sep}${value}`,
      secret: value,
    })),
  fc.tuple(credentialKey, fc.constantFrom('"', "'"), spacedValue).map(([key, quote, value]) => ({
    form: 'quoted assignment',
    text: `${key}: ${quote}${value}${quote}`,
    secret: value,
  })),
  fc
    .tuple(
      fc.constantFrom(
        'Bearer',
        'bearer',
        'Basic',
        'basic',
        'Token',
        'Digest',
        'Bot',
        'ApiKey',
        'Custom',
      ),
      chars(`${B62}._~+/=-`, 12, 40),
    )
    .map(([scheme, token]) => ({
      form: 'authorization header',
      text: `Authorization: ${scheme} ${token}`,
      secret: token,
    })),
  fc.tuple(plainValue, plainValue).map(([a, b]) => ({
    form: 'cookie header',
    text: `Cookie: sid=${a}; theme=${b}`,
    secret: a,
  })),
  fc
    .tuple(
      fc.constantFrom('postgres', 'mysql', 'mongodb+srv', 'redis', 'https', 'amqp'),
      chars('abcdefghijklmnopqrstuvwxyz', 3, 10),
      chars(`${B62}!$*+@._~-`, 12, 30),
    )
    .map(([scheme, user, password]) => ({
      form: 'URL password',
      text: `${scheme}://${user}:${password}@db.internal:5432/app`,
      secret: password,
    })),
  fc.tuple(credentialKey, plainValue).map(([key, value]) => ({
    form: 'command-line flag',
    text: `run --${key.toLowerCase()} ${value} --verbose`,
    secret: value,
  })),
  fc
    .tuple(
      fc.oneof(
        credentialKey,
        fc.constantFrom(...CREDENTIAL_WORDS).map((w) => w.join(' ')),
      ),
      fc.constantFrom('The', 'my', 'our', 'the new', 'Note: the'),
      fc.constantFrom('is', 'was', 'is set to', 'was changed to', 'reset to'),
      plainValue,
      fc.nat(),
      fc.constantFrom('', '.', ', please rotate it', ' (temporary)'),
    )
    .map(([key, before, verb, value, at, after]) => {
      // A digit somewhere: a password people type (a plain word there reads as prose).
      const i = at % value.length;
      const secret = `${value.slice(0, i)}7${value.slice(i)}`;
      return { form: 'prose', text: `${before} ${key} ${verb} ${secret}${after}`, secret };
    }),
  fc
    .tuple(
      fc.constantFrom(
        'curl -u ',
        'curl --user ',
        'curl --user=',
        'curl -U ',
        'http --auth ',
        'http -a ',
      ),
      chars('abcdefghijklmnopqrstuvwxyz', 3, 10),
      chars(`${B62}!$*+._~-`, 12, 30),
    )
    .map(([flag, user, password]) => ({
      form: 'user:password flag',
      text: `${flag}${user}:${password} https://api.example.com/v1/items`,
      secret: password,
    })),
  fc
    .tuple(
      fc.constantFrom(
        (pw: string) => `mysql -u root -p${pw} -h db.internal app`,
        (pw: string) => `mysqldump --single-transaction -uadmin -p${pw} shop > shop.sql`,
        (pw: string) => `redis-cli -h cache.internal -p 6380 -a ${pw} PING`,
        (pw: string) => `sshpass -p ${pw} ssh deploy@10.0.0.5 uptime`,
      ),
      chars(`${B62}!$*+._~-`, 12, 30),
    )
    .map(([command, password]) => ({
      form: "a client's password flag",
      text: command(password),
      secret: password,
    })),
  fc.tuple(credentialKey, chars(B62, 12, 40)).map(([key, value]) => ({
    form: 'query parameter',
    text: `https://api.example.com/v1/items?page=2&${key}=${value}&sort=asc`,
    secret: value,
  })),
  fc
    .tuple(
      credentialKey,
      plainValue,
      fc.constantFrom('string', 'array', 'object', 'number'),
      fc.integer({ min: 0, max: 3 }),
    )
    .map(([key, value, kind, depth]) => {
      const number = Number(`9${'7'.repeat(14)}`) + value.length;
      const inner =
        kind === 'string'
          ? value
          : kind === 'array'
            ? ['x', value]
            : kind === 'object'
              ? { user: 'u', value }
              : number;
      let nested: unknown = { [key]: inner, note: 'ok' };
      for (let i = 0; i < depth; i += 1) nested = i % 2 === 0 ? [nested] : { config: nested };
      return {
        form: `JSON, credential ${kind}`,
        text: JSON.stringify(nested),
        secret: kind === 'number' ? String(number) : value,
      };
    }),
  fc.tuple(prefix, keyBody).map(([p, body]) => ({
    form: 'secret as a JSON key',
    text: JSON.stringify({ [`${p}_${body}`]: 1 }),
    secret: body,
  })),
  fc
    .tuple(
      credentialKey,
      fc.constantFrom(
        (k: string, v: string) =>
          JSON.stringify({
            environment: [
              { name: 'PORT', value: '80' },
              { name: k, value: v },
            ],
          }),
        (k: string, v: string) => `env:\n  - name: ${k}\n    value: ${v}\n  - name: PORT`,
        (k: string, v: string) => `<appSettings><add key="${k}" value="${v}" /></appSettings>`,
        (k: string, v: string) => `<input type="text" name="${k}" value="${v}">`,
        (k: string, v: string) => `<dict><key>${k}</key><string>${v}</string></dict>`,
        (k: string, v: string) => `<config><${k}>${v}</${k}></config>`,
      ),
      plainValue,
    )
    .map(([key, write, value]) => ({
      form: 'name and value apart (environment list, XML, property list)',
      text: write(key, value),
      secret: value,
    })),
  fc
    .tuple(
      fc.oneof(
        credentialKey,
        fc.constantFrom(...CREDENTIAL_WORDS).map((w) => w.join(' ')),
      ),
      fc.constantFrom(
        (k: string, v: string) => `machine api.example.com login deploy ${k} ${v}`,
        (k: string, v: string) => `request rejected: invalid ${k} ${v} (401)`,
        (k: string, v: string) => `ALTER ROLE app WITH LOGIN ${k} '${v}';`,
        (k: string, v: string) => `./server -${k.replaceAll(' ', '-')} ${v} -port 8080`,
      ),
      pairValue,
    )
    .map(([key, write, value]) => ({
      form: 'name then value, nothing between',
      text: write(key, value),
      secret: value,
    })),
  fc
    .tuple(
      credentialKey,
      fc.constantFrom(
        (k: string, v: string) => `docker login -u bot -p ${v} registry.example.com # ${k}`,
        (k: string, v: string) => `podman login --username bot -p ${v} quay.io # ${k}`,
        (_: string, v: string) => `GRANT ALL ON app.* TO 'app'@'%' IDENTIFIED BY '${v}';`,
        (_: string, v: string) => `$s = ConvertTo-SecureString "${v}" -AsPlainText -Force`,
        (k: string, v: string) => `java -Dapp.${k}=${v} -jar server.jar`,
        (k: string, v: string) => `./server -${k}=${v} -port 8080`,
        (k: string, v: string) => `Connect-Service -${k} '${v}' -Force`,
        (_: string, v: string) => `db.internal:5432:app:deploy:${v}`,
        (k: string, v: string) => `client.set${identifierPart(k)}("${v}")`,
      ),
      plainValue,
    )
    .map(([key, write, value]) => ({
      form: "a command's or a language's own way to pass one",
      text: write(key, value),
      secret: value,
    })),
];

/** A key as it would be written inside a setter's name: `stripe-api_key` → `StripeApiKey`. */
function identifierPart(key: string): string {
  return key
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** Each form as it is, JSON-escaped, or URL-encoded. */
export const planted = fc
  .tuple(fc.oneof(...FORMS), fc.constantFrom('plain', 'plain', 'json-escaped', 'url-encoded'))
  .map(([p, encoding]): Planted => {
    if (encoding === 'plain') return p;
    const encode =
      encoding === 'json-escaped'
        ? (s: string) =>
            [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')
        : (s: string) =>
            [...s].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    return { form: `${p.form}, ${encoding}`, text: encode(p.text), secret: p.secret };
  });
