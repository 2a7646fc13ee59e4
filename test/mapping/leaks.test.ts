// No secret or personal datum leaves the process, in any channel, with content capture on or off:
// each shape below is put at the start of a line (after a newline, also inside JSON strings) in
// text deltas (whole and split across two), tool arguments and results, tool and run errors, doom
// loop descriptions, session and tool call ids and an oxi tool failure (whose error is the tool's output), and nothing that
// is exported (span names, attributes, span events, status messages) may contain it.
// The samples are fakes of the right shape, built here so that no literal looks like a live key.
import { describe, expect, it } from 'vitest';
import type { DataPoint, MetricData } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { behest, RUN_A } from '../helpers/behest-lines.js';
import { createHarness } from '../helpers/harness.js';
import { createScrubber } from '../../src/index.js';

const ALNUM = 'aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zC';
const run = (n: number, alphabet = ALNUM) =>
  Array.from({ length: n }, (_, i) => alphabet[(i * 7 + 3) % alphabet.length]).join('');
const hex = (n: number) => run(n, '0123456789abcdef');
const upper = (n: number) => run(n, 'ABCDEFGHJKLMNPQRSTUVWXYZ234567');
const base64 = (n: number) => run(n, `${ALNUM}+/`);
const uuid = '3f2b8c1d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

/** [shape, text to plant, what must not appear anywhere exported (default: the text)]. */
const RAW: readonly (readonly [string, string, string?])[] = [
  ['OpenAI project key', `sk-proj-${run(48)}`],
  ['Anthropic key', `sk-ant-api03-${run(60)}`],
  ['OpenRouter key', `sk-or-v1-${hex(64)}`],
  ['Groq key', `gsk_${run(52)}`],
  ['Replicate token', `r8_${run(37)}`],
  ['xAI key', `xai-${run(80)}`],
  ['Perplexity key', `pplx-${run(48)}`],
  ['Hugging Face token', `hf_${run(34)}`],
  ['GitHub token', `ghp_${run(36)}`],
  ['GitHub fine-grained token', `github_pat_${run(82, `${ALNUM}_`)}`],
  ['GitLab token', `glpat-${run(20)}`],
  ['npm token', `npm_${run(36)}`],
  ['PyPI token', `pypi-AgEIcHlwaS5vcmc${run(70)}`],
  ['RubyGems key', `rubygems_${hex(48)}`],
  ['NuGet key', `oy2${run(43, 'abcdefghijklmnopqrstuvwxyz0123456789')}`],
  ['Docker Hub token', `dckr_pat_${run(27)}`],
  ['AWS access key id', `AKIA${upper(16)}`],
  ['AWS secret access key, unlabelled', `wJalrXUtnFEMI/K7MDENG/bPxRfiCY${run(10)}`],
  ['Google API key', `AIza${run(35)}`],
  ['Google OAuth token', `ya29.${run(60)}`],
  ['Azure AD client secret', `abc8Q~${run(34)}`],
  ['Azure storage key', `${base64(86)}==`],
  [
    'Azure storage connection string',
    `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${base64(86)}==;EndpointSuffix=core.windows.net`,
    base64(86),
  ],
  ['DigitalOcean token', `dop_v1_${hex(64)}`],
  ['Vault token', `hvs.${run(40)}`],
  ['Doppler token', `dp.pt.${run(43)}`],
  ['Supabase token', `sbp_${hex(40)}`],
  ['Databricks token', `dapi${hex(32)}`],
  ['Slack bot token', `xoxb-1234567890-${run(24)}`],
  ['Slack webhook', `https://hooks.slack.com/services/T0A1B2C3D/B0A1B2C3D/${run(24)}`, run(24)],
  [
    'Discord webhook',
    `https://discord.com/api/webhooks/123456789012345678/${run(68)}`,
    `123456789012345678/${run(68)}`,
  ],
  [
    'Teams webhook',
    `https://contoso.webhook.office.com/webhookb2/${uuid}@${uuid}/IncomingWebhook/${hex(32)}/${uuid}`,
    hex(32),
  ],
  ['Telegram bot token', `1234567890:AA${run(33)}`],
  ['Stripe live key', `sk_live_${run(24)}`],
  ['Stripe webhook secret', `whsec_${run(32)}`],
  ['Twilio key', `SK${hex(32)}`],
  ['SendGrid key', `SG.${run(22)}.${run(43)}`],
  ['Mailgun key', `key-${run(32)}`],
  ['Shopify token', `shpat_${hex(32)}`],
  ['Linear key', `lin_api_${run(40)}`],
  ['Notion token', `ntn_${run(46)}`],
  ['Figma token', `figd_${run(40)}`],
  ['Postman key', `PMAK-${hex(24)}-${hex(34)}`],
  ['New Relic key', `NRAK-${upper(27)}`],
  ['Sentry token', `sntrys_${run(60)}`],
  ['Grafana service account token', `glsa_${run(32)}_${hex(8)}`],
  ['age secret key', `AGE-SECRET-KEY-1${run(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}`],
  ['JWT', `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${run(43)}`, run(43)],
  [
    'PEM private key',
    `-----BEGIN RSA PRIVATE KEY-----\nMIIEow${base64(60)}\n-----END RSA PRIVATE KEY-----`,
    `MIIEow${base64(60)}`,
  ],
  ['bearer token', `Authorization: Bearer ${run(40)}`, run(40)],
  ['BEARER token, upper case', `AUTHORIZATION: BEARER ${run(40)}`, run(40)],
  ['basic credentials', `Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==`, 'dXNlcjpwYXNzd29yZDEy'],
  ['URL password with a slash', 'postgres://app:s3cr3t/with/slash@db.internal:5432/app', 's3cr3t'],
  ['MongoDB URL password', 'mongodb+srv://root:Pa55w0rd!x@cluster0.example.net/db', 'Pa55w0rd'],
  ['*_PASSWORD assignment', 'DB_PASSWORD=hunter2hunter2', 'hunter2'],
  ['PASSWORD= upper case', 'PASSWORD=Tr0ub4dor&3x', 'Tr0ub4dor'],
  ['api_key in JSON text', '{"api_key": "k9Xq2Lm8Rt5Wv"}', 'k9Xq2Lm8Rt5Wv'],
  ['secret: in YAML', 'client_secret: Zq8Rt5Wv2Lm9', 'Zq8Rt5Wv2Lm9'],
  // Shapes no issuer list names: found by their structure, context or randomness.
  ['camelCase credential name', 'appSecret=Xq7pLm2Rt9Wv', 'Xq7pLm2Rt9Wv'],
  ['environment name run together', 'PGPASSWORD=Tr0ub4dor3x', 'Tr0ub4dor3x'],
  ['fat-arrow assignment', "'api_key' => 'k9Xq2Lm8Rt5W'", 'k9Xq2Lm8Rt5W'],
  ['command-line flag', 'mysql --password Zq8Rt5Wv2Lm9 -h db', 'Zq8Rt5Wv2Lm9'],
  ['quoted password with spaces', 'password: "correct horse battery staple"', 'horse battery'],
  ['URL password holding @', 'postgres://app:p@ss@w0rd!@db.internal:5432/app', 'ss@w0rd!'],
  ['token scheme', `Authorization: Token ${run(40)}`, run(40)],
  ['basic in lower case', 'authorization: basic dXNlcjpwYXNzd29yZDEyMw==', 'dXNlcjpwYXNzd29yZDEy'],
  ['cookie header', `Cookie: session=${run(32)}; theme=dark`, run(32)],
  [
    'credential-named query parameter',
    `https://api.example.com/v1?access_token=${run(30)}&page=2`,
    run(30),
  ],
  ['unknown vendor prefix, random body', `acme_live_${run(32)}`, run(32)],
  ['escaped in JSON text', `\\u0067hp_${run(36)}`, run(36)],
  ['URL-encoded', `token%3D${run(28)}`, run(28)],
  ['IBAN', 'GB82 WEST 1234 5698 7654 32', 'WEST 1234 5698'],
  ['US social security number', '078-05-1120'],
  ['payment card', '4111 1111 1111 1111'],
  ['payment card without spaces', '5555555555554444'],
  ['e-mail address', 'jane.doe+agents@example.co.uk'],
];
const SAMPLES: [string, string, string][] = RAW.map(([shape, secret, core]) => [
  shape,
  secret,
  core ?? secret,
]);

/** Every string a collector would receive for these spans and metrics, resources included. */
function exported(spans: readonly ReadableSpan[], metrics: readonly MetricData[]): string {
  return JSON.stringify({
    spans: spans.map((s) => ({
      name: s.name,
      resource: s.resource.attributes,
      attributes: s.attributes,
      status: s.status,
      events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
    })),
    metrics: metrics.map((m) => ({
      name: m.descriptor.name,
      points: (m.dataPoints as DataPoint<unknown>[]).map((p) => p.attributes),
    })),
  });
}

function behestRun(secret: string): string[] {
  const half = Math.floor(secret.length / 2);
  const tool = (id: string, time: string, result: unknown) =>
    behest('ToolExecutionFinished', RUN_A, time, {
      call_id: id,
      tool_name: 'bash',
      result,
      duration_ms: 5,
    });
  return [
    // Names are the runtime's text as well: the provider's, the model's and a tool's.
    behest('RunStarted', RUN_A, '00', {
      provider: `openai ${secret}`,
      model: `gpt-4o-mini:${secret}`,
      session_id: `session ${secret}`,
    }),
    behest('ModelStarted', RUN_A, '00.100', { iteration: 1 }),
    behest('TextDelta', RUN_A, '00.200', { delta: `Here it is:\n${secret}\n` }),
    behest('TextDelta', RUN_A, '00.300', { delta: `and split: ${secret.slice(0, half)}` }),
    behest('TextDelta', RUN_A, '00.400', { delta: `${secret.slice(half)} done` }),
    behest('ToolCallCompleted', RUN_A, '00.500', {
      call: { id: 'c1', name: 'bash', arguments: { cmd: `echo\n${secret}`, env: [secret] } },
    }),
    behest('AssistantMessageCommitted', RUN_A, '00.600', {}),
    behest('ToolExecutionStarted', RUN_A, '00.700', { call_id: 'c1', tool_name: 'bash' }),
    tool('c1', '00.800', { Success: { output: { stdout: `ok\n${secret}`, raw: secret } } }),
    behest('ToolExecutionStarted', RUN_A, '00.900', { call_id: 'c2', tool_name: 'bash' }),
    tool('c2', '01.000', { Failure: { error: `exit 1:\n${secret}` } }),
    // Identifiers are the runtime's text too.
    behest('ToolExecutionStarted', RUN_A, '01.010', { call_id: secret, tool_name: 'bash' }),
    tool(secret, '01.020', { Success: { output: 'ok' } }),
    behest('ToolExecutionStarted', RUN_A, '01.030', { call_id: 'c3', tool_name: secret }),
    behest('ToolExecutionFinished', RUN_A, '01.040', {
      call_id: 'c3',
      tool_name: secret,
      result: { Success: { output: 'ok' } },
      duration_ms: 5,
    }),
    behest('DoomLoopDetected', RUN_A, '01.100', { description: `looping on\n${secret}` }),
    behest('RunFailed', RUN_A, '01.200', { error: `provider error:\n${secret}` }),
  ];
}

function oxiRun(secret: string): string[] {
  return [
    JSON.stringify({ type: 'agentStart', prompts: [{ role: 'user', content: 'go' }] }),
    JSON.stringify({
      type: 'toolExecutionStart',
      tool_call_id: 't1',
      tool_name: 'bash',
      args: { cmd: `cat .env\n${secret}` },
    }),
    JSON.stringify({
      type: 'toolExecutionEnd',
      tool_call_id: 't1',
      tool_name: 'bash',
      result: { tool_call_id: 't1', content: `failed:\n${secret}`, status: 'error' },
      is_error: true,
    }),
    JSON.stringify({ type: 'agentEnd', messages: [] }),
  ];
}

/** The spans and metrics of both runs for one planted text, as a collector would receive them. */
async function plant(
  secret: string,
  options: Parameters<typeof createHarness>[0],
): Promise<string> {
  const h = createHarness(options);
  h.feed(behestRun(secret).join('\n'));
  const stream = h.sink.openStream('oxi-log', 'oxi');
  for (const line of oxiRun(secret)) stream.handleJson(line);
  h.sink.endOpenRuns();
  expect(h.spans().length).toBeGreaterThan(6);
  const metrics = await h.metrics();
  // The metric channels that carry names are there.
  expect(metrics.map((m) => m.descriptor.name)).toEqual(
    expect.arrayContaining(['agent.runs', 'agent.tool.calls']),
  );
  return exported(h.spans(), metrics);
}

describe.each([false, true])('content capture %s', (captureContent) => {
  it.each(SAMPLES)('%s leaves no trace', async (_shape, secret, core) => {
    const text = await plant(secret, { captureContent });
    // The channels are there (content only when captured), and the shape is gone from all of them.
    expect(text.includes('gen_ai.output.messages')).toBe(captureContent);
    expect(text.includes('agent.doom_loop.detected')).toBe(true);
    expect(text.includes(core)).toBe(false);
  });
});

// The control: without the patterns, every planted shape does reach the export, so the test above
// would see a leak. (Shapes that the always-on layers mask by themselves — context, randomness,
// the check for unlabelled 40-character keys — are left out here.)
const alwaysOn = createScrubber([], { personalData: false });
it.each(SAMPLES.filter(([, secret, core]) => alwaysOn(secret).includes(core)))(
  'control: %s is exported when nothing scrubs it',
  async (_shape, secret, core) => {
    const text = await plant(secret, {
      captureContent: true,
      scrubPatterns: [],
      scrubPersonalData: false,
    });
    expect(text.includes(core)).toBe(true);
  },
);

it('keeps personal data when told to, and nothing else', async () => {
  const h = createHarness({ captureContent: true, scrubPersonalData: false });
  h.feed(behestRun('mail jane.doe@example.com, key ghp_' + run(36)).join('\n'));
  const text = exported(h.spans(), await h.metrics());
  expect(text).toContain('jane.doe@example.com');
  expect(text).not.toContain(`ghp_${run(36)}`);
});

it('gives a failed tool whose error is its output no status message with capture off', () => {
  const h = createHarness();
  const stream = h.sink.openStream('oxi-log', 'oxi');
  for (const line of oxiRun('it printed the prompt back')) stream.handleJson(line);
  h.sink.endOpenRuns();
  const tool = h.spans().find((s) => s.name === 'execute_tool bash');
  expect(tool?.status).toEqual({ code: 2 });
  expect(tool?.attributes['error.type']).toBe('tool_error');
});

describe('error texts', () => {
  const failing = (errorText: string) => [
    behest('RunStarted', RUN_A, '00', { provider: 'openai', model: 'gpt-4o-mini' }),
    behest('ModelStarted', RUN_A, '00.100', { iteration: 1 }),
    behest('ToolExecutionStarted', RUN_A, '00.700', { call_id: 'c2', tool_name: 'bash' }),
    behest('ToolExecutionFinished', RUN_A, '01.000', {
      call_id: 'c2',
      tool_name: 'bash',
      result: { Failure: { error: `exit 1: ${errorText}` } },
      duration_ms: 5,
    }),
    behest('RunFailed', RUN_A, '01.200', { error: `provider error: ${errorText}` }),
  ];

  it('are exported scrubbed by default', () => {
    const h = createHarness();
    h.feed(failing('the quota ran out').join('\n'));
    const root = h.spans().find((s) => s.name === 'invoke_agent');
    expect(root?.status.message).toBe('provider error: the quota ran out');
    const tool = h.spans().find((s) => s.name === 'execute_tool bash');
    expect(tool?.status.message).toBe('exit 1: the quota ran out');
    expect(root?.events.map((e) => e.name)).toContain('exception');
  });

  it.each([
    ['the option', { exportErrorText: false }],
    ['the environment', { env: { AGENT_OTEL_BRIDGE_EXPORT_ERROR_TEXT: 'false' } }],
  ] as const)('leave only their class when %s says so', async (_how, options) => {
    const h = createHarness(options);
    h.feed(failing('the quota ran out').join('\n'));
    const text = exported(h.spans(), await h.metrics());
    expect(text).not.toContain('quota');
    expect(text).not.toContain('exit 1');
    const root = h.spans().find((s) => s.name === 'invoke_agent');
    expect(root?.status).toEqual({ code: 2 });
    expect(root?.attributes['error.type']).toBe('provider');
    expect(root?.events.map((e) => e.name)).not.toContain('exception');
    const failed = h.spans().filter((s) => s.attributes['agent.tool.outcome'] === 'failure');
    expect(failed.length).toBeGreaterThan(0);
    for (const tool of failed) expect(tool.status).toEqual({ code: 2 });
  });
});
