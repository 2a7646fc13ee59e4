import { describe, expect, it } from 'vitest';
import { createScrubber, DEFAULT_SCRUB_PATTERNS, REDACTED } from '../../../src/index.js';
import { truncateUtf8 } from '../../../src/mapping/privacy/content.js';

const scrub = createScrubber(DEFAULT_SCRUB_PATTERNS);

describe('scrubber', () => {
  it.each([
    [
      'OpenAI key',
      'provider error: invalid key sk-proj-AbCdEf0123456789AbCdEf0123',
      'sk-proj-AbCdEf0123456789AbCdEf0123',
    ],
    [
      'Anthropic key',
      'x-api-key sk-ant-api03-AbCdEf0123456789_AbCdEf-0123',
      'sk-ant-api03-AbCdEf0123456789_AbCdEf-0123',
    ],
    [
      'GitHub token',
      'clone failed with ghp_0123456789abcdefABCDEF0123456789abcd',
      'ghp_0123456789abcdefABCDEF0123456789abcd',
    ],
    [
      'GitHub fine-grained token',
      'token github_pat_11ABCDEFG0123456789_abcdefghijklmnop',
      'github_pat_11ABCDEFG0123456789_abcdefghijklmnop',
    ],
    ['AWS access key id', 'aws AKIAIOSFODNN7EXAMPLE denied', 'AKIAIOSFODNN7EXAMPLE'],
    ['password in prose', 'login failed: my password is hunter2horse!battery', 'hunter2horse'],
    ['curl user:password', 'curl -u alice:Tr0ub4dor&3 https://api.example.com', 'Tr0ub4dor'],
    ['mysql glued password', 'exit 1: mysql -u root -pS3cretPass app', 'S3cretPass'],
    [
      'Google API key',
      'key=AIzaSyA-0123456789abcdefghijklmnopqrstu',
      'AIzaSyA-0123456789abcdefghijklmnopqrstu',
    ],
    ['Slack token', 'slack xoxb-123456789012-abcdefghijkl', 'xoxb-123456789012-abcdefghijkl'],
    ['Stripe key', 'stripe sk_live_0123456789abcdefABCDEF', 'sk_live_0123456789abcdefABCDEF'],
    [
      'JWT',
      'session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      'eyJhbGciOiJIUzI1NiJ9',
    ],
    ['bearer token', 'Authorization: Bearer abc.DEF-123_456~xyz', 'abc.DEF-123_456~xyz'],
    ['basic auth', 'Authorization: Basic dXNlcjpodW50ZXIy', 'dXNlcjpodW50ZXIy'],
    [
      'password in a URL',
      'connect postgres://app:s3cr3t-pw@db.internal:5432/app failed',
      's3cr3t-pw',
    ],
    ['password=', 'login failed (password=hunter2)', 'hunter2'],
    ['secret: in JSON', '{"client_secret": "abc123def"}', 'abc123def'],
    ['token=', 'GET /hook?token=abcdef123456&x=1', 'abcdef123456'],
    ['api_key=', 'api_key=zz-top-secret', 'zz-top-secret'],
    [
      'private key',
      'key: -----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY----- end',
      'MIIEow',
    ],
  ])('masks a %s', (_name, text, secret) => {
    const out = scrub(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED);
  });

  it('keeps the context around a secret', () => {
    expect(scrub('login failed (password=hunter2) at 12:00')).toBe(
      `login failed (password=${REDACTED}) at 12:00`,
    );
    expect(scrub('Authorization: Bearer abcdefgh12345678')).toBe(
      `Authorization: Bearer ${REDACTED}`,
    );
    expect(scrub('postgres://app:pw123456@db/app')).toBe(`postgres://app:${REDACTED}@db/app`);
  });

  it('leaves ordinary text alone', () => {
    const text = 'provider error: rate limited (retry after 20s); tool get_weather timed out';
    expect(scrub(text)).toBe(text);
  });

  // Shapes tried from outside that leaked before the rules that name them.
  it.each([
    ['name then value (.netrc)', 'machine api.example.com login me password Xy9secretPass'],
    ['name then value (prose)', 'twilio auth token 9f8e7d6c5b4a39281706f5e4d3c2b1a0 invalid'],
    ['SQL PASSWORD', "ALTER USER app WITH PASSWORD 'n3wPassw0rd!';"],
    ['SQL IDENTIFIED BY', "CREATE USER x IDENTIFIED BY 'S3cretOra!';"],
    ['SQL PASSWORD()', "SET PASSWORD FOR 'bob'@'localhost' = PASSWORD('S3tPw!x');"],
    ['XML element', '<config><user>app</user><password>hunter2Horse!</password></config>'],
    ['property list', '<dict><key>apiToken</key><string>tok9x8c7v6b5n4m3</string></dict>'],
    ['XML name and value', '<add key="SmtpPassword" value="Mail!Pa55word" />'],
    ['environment list', 'env:\n  - name: STRIPE_API_KEY\n    value: rk_q9Zx81mNbV2cX3zLk4'],
    [
      'environment list, JSON',
      '[{"name":"PORT","value":"80"},{"name":"DB_PASS","value":"Qw3rty!Zx9"}]',
    ],
    ['docker login -p', 'docker login -u admin -p S3cr3tP4ssw0rd registry.local'],
    ['PowerShell', "$p = ConvertTo-SecureString 'Ad!Passw0rd9' -AsPlainText -Force"],
    ['Java property', 'java -Djavax.net.ssl.keyStorePassword=K3yst0re! -jar app.jar'],
    ['one-dash flag', './server -token=srv7Tok3nValue9 -port 8080'],
    ['.pgpass line', '*:*:*:postgres:PgPass!7word'],
    ['redis.conf', 'requirepass F00bared!Redis'],
    ['setter', 'client.setApiKey("abcd1234efgh5678")'],
  ])('masks a secret in %s form', (_form, text) => {
    const secret =
      /(?:Xy9|9f8e|n3w|S3c|S3t|hunter2|tok9|Mail|rk_|Qw3|Ad!|K3y|srv7|PgPass|F00|abcd)[^\s'"<;)]*/.exec(
        text,
      )![0];
    expect(scrub(text), text).not.toContain(secret);
  });

  it.each([
    ['a getter of a secret by name', 'getSecret("db-password") returned 404'],
    [
      'an id beside a key (not the key)',
      '{"private_key_id": "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"}',
    ],
    [
      'a transaction hash',
      'tx 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318 mined',
    ],
    ['a verb', 'Pass post-stage1 flags and stage1_args to sub-makes.'],
    ['a reference', 'Fixed a crash when ending a session (#1234abc).'],
    ['a label', 'Could not inject [token "grandChild"] -> [class GrandChild]'],
    ['a date and a version', 'session 2024-05-01T12:00:00Z started; token v2.3.1-beta'],
    ['a path', '-DDBUS_CONSOLE_AUTH_DIR=/run/console in CMake'],
    ['an option in prose', 'New option --show-session-key.  Remove a test.'],
    ['ports and a command', 'localhost:5432:db:user:password and fe80::1:2:3:4'],
  ])('leaves %s alone', (_what, text) => {
    expect(scrub(text)).toBe(text);
  });

  it('masks what generated secrets found, and leaves comparisons in code alone', () => {
    const scrub = createScrubber(DEFAULT_SCRUB_PATTERNS);
    for (const [text, masked] of [
      ['password===AAAAAAAAAAAA', `password=${REDACTED}`],
      ['password==AAAAAAAAAAAA', `password=${REDACTED}`],
      ['password=~AAAAAAAAAAAA', `password=${REDACTED}`],
      ['password => AAAAAAAAAAAA', `password => ${REDACTED}`],
      ['PGDSN: "AAAAAAAAAAAA"', `PGDSN: ${REDACTED}`],
      [
        'run --connection_string AAAAAAAAAAAA --verbose',
        `run --connection_string ${REDACTED} --verbose`,
      ],
      ['exit 1: {"password":["x","AAAAAAAAAAAA"]}', `exit 1: {"password":"${REDACTED}"}`],
      ['if (token === undefined) return;', 'if (token === undefined) return;'],
      ['while (password == null) wait();', 'while (password == null) wait();'],
    ] as const)
      expect(scrub(text), text).toBe(masked);
  });

  it("takes user patterns, global or not, in place of the issuers' shapes", () => {
    const custom = createScrubber([/internal-\d+/, /(?<keep>user=)\w+/g]);
    // `ghp_` + 36 is an issuer's shape only: without the default patterns it stays.
    expect(custom('host internal-42 user=alice ghp_aaaabbbbccccddddeeeeffffgggghhhhiiii')).toBe(
      `host ${REDACTED} user=${REDACTED} ghp_aaaabbbbccccddddeeeeffffgggghhhhiiii`,
    );
  });
});

describe('truncateUtf8', () => {
  it('keeps short text and cuts long text on a character boundary with a marker', () => {
    expect(truncateUtf8('short', 100)).toBe('short');
    const cut = truncateUtf8('é'.repeat(100), 51);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(51);
    expect(cut).toMatch(/^é+…\[truncated\]$/);
  });
});
