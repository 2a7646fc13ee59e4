// What `npm publish` would ship: the built code with the sources its maps point at, the licence
// and notices, no tests; built before packing; only what the library runs on as dependencies.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  license: string;
};
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** A fresh project with the packed tarball (and the API) installed, as a user's; made once. */
let consumer: string | undefined;
function consumerProject(): string {
  if (consumer !== undefined) return consumer;
  const project = mkdtempSync(join(tmpdir(), 'aob-consumer-'));
  execFileSync(npm, ['pack', '--ignore-scripts', '--pack-destination', project], {
    cwd: root,
    encoding: 'utf8',
  });
  const tarball = readdirSync(project).find((f) => f.endsWith('.tgz'))!;
  writeFileSync(join(project, 'package.json'), '{"name":"consumer","version":"1.0.0"}');
  execFileSync(
    npm,
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      `./${tarball}`,
      '@opentelemetry/api',
    ],
    { cwd: project, encoding: 'utf8' },
  );
  consumer = project;
  return project;
}
afterAll(() => {
  if (consumer !== undefined) rmSync(consumer, { recursive: true, force: true });
});

it('ships the code, its sources, the licence and the notices, and no tests', () => {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const [report] = JSON.parse(
    execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
    }),
  ) as [{ files: { path: string }[] }];
  const files = report.files.map((f) => f.path);
  for (const path of ['LICENSE', 'NOTICE', 'dist/index.js', 'dist/cli/main.js', 'src/index.ts'])
    expect(files).toContain(path);
  expect(files.filter((f) => f.startsWith('test/') || f.startsWith('bench/'))).toEqual([]);
  // Every source map points at a shipped source.
  const maps = files.filter((f) => f.endsWith('.js.map'));
  expect(maps.length).toBeGreaterThan(10);
  for (const map of maps.slice(0, 20)) {
    const { sources } = JSON.parse(readFileSync(`${root}/${map}`, 'utf8')) as { sources: string[] };
    const dir = map.slice(0, map.lastIndexOf('/') + 1);
    for (const source of sources)
      expect(files).toContain(new URL(source, `file:///${dir}`).pathname.slice(1));
  }
});

it('builds before packing and depends on no SDK setup package it does not use', () => {
  expect(pkg.scripts['prepack']).toContain('build');
  expect(pkg.license).toBe('Apache-2.0');
  expect(readFileSync(new URL('../LICENSE', import.meta.url), 'utf8')).toContain('Apache License');
  expect(Object.keys(pkg.dependencies)).not.toContain('@opentelemetry/sdk-node');
});

it('is required from CommonJS and imported from ES modules, from the packed tarball, with types', () => {
  const project = consumerProject();
  {
    writeFileSync(
      join(project, 'a.cjs'),
      [
        "const { createAgentOtelSink } = require('agent-otel-bridge');",
        "const { startTelemetry } = require('agent-otel-bridge/telemetry');",
        'const sink = createAgentOtelSink({ env: {} });',
        "console.log(typeof startTelemetry, sink.handle({ type: 'RunStarted', runId: 'r', time: [1, 0] }).outcome);",
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'b.mjs'),
      "import { createAgentOtelSink } from 'agent-otel-bridge';\nconsole.log(typeof createAgentOtelSink);",
    );
    expect(execFileSync(process.execPath, ['a.cjs'], { cwd: project, encoding: 'utf8' })).toBe(
      'function accepted\n',
    );
    expect(execFileSync(process.execPath, ['b.mjs'], { cwd: project, encoding: 'utf8' })).toBe(
      'function\n',
    );
    // A CommonJS TypeScript file type-checks against the shipped declarations (module nodenext).
    writeFileSync(
      join(project, 'c.cts'),
      [
        "import { createAgentOtelSink } from 'agent-otel-bridge';",
        "import type { AgentEvent } from 'agent-otel-bridge';",
        "const event: AgentEvent = { type: 'RunStarted', runId: 'r', time: [0, 0] };",
        'createAgentOtelSink().handle(event);',
      ].join('\n'),
    );
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules/typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        'c.cts',
      ],
      { cwd: project, encoding: 'utf8' },
    );
  }
}, 120_000);

it('installs without the broker and gRPC clients, and says what to install when one is used', () => {
  const optional = Object.keys(pkg.peerDependenciesMeta).filter(
    (name) => pkg.peerDependenciesMeta[name]?.optional === true,
  );
  expect(optional.sort()).toEqual([
    '@nats-io/jetstream',
    '@nats-io/kv',
    '@nats-io/transport-node',
    '@opentelemetry/exporter-metrics-otlp-grpc',
    '@opentelemetry/exporter-trace-otlp-grpc',
    'redis',
  ]);
  // The README's install table names each with the range declared here.
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  for (const name of optional) {
    expect(pkg.dependencies).not.toHaveProperty(name);
    expect(readme).toContain(`${name}@${pkg.peerDependencies[name]}`);
  }
  const project = consumerProject();
  for (const dir of [
    '@nats-io',
    'redis',
    '@redis',
    '@grpc',
    '@opentelemetry/exporter-trace-otlp-grpc',
  ])
    expect(existsSync(join(project, 'node_modules', dir)), dir).toBe(false);
  const bin = join(project, 'node_modules/.bin/agent-otel-bridge');
  const cli = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(bin, args, { cwd: project, encoding: 'utf8', env: { ...process.env, ...env } });
  const install = (names: string[]) =>
    `npm install ${names.map((n) => `"${n}@${pkg.peerDependencies[n]}"`).join(' ')}`;
  const routeRedis = ['route', 'redis', '--url', 'redis://127.0.0.1:9', '--stream', 'k'];
  routeRedis.push('--partitions', '4');
  // Nothing is reached: the missing client is said before any connection is tried.
  const nats = cli(['nats', '--url', 'nats://127.0.0.1:9', '--stream', 'S', '--subject', 's']);
  expect(nats.status).toBe(2);
  expect(nats.stderr).toContain('the NATS client is not installed');
  expect(nats.stderr).toContain(
    install(['@nats-io/transport-node', '@nats-io/jetstream', '@nats-io/kv']),
  );
  const route = cli(routeRedis);
  expect(route.status).toBe(2);
  expect(route.stderr).toContain(`the Redis client is not installed (redis missing)`);
  const grpc = cli(['demo', '--runs', '1', '--output', 'otlp'], {
    OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
  });
  expect(grpc.status).toBe(2);
  expect(grpc.stderr).toContain('the OTLP/gRPC exporters are not installed');
  // The library says the same, as a ConfigError, when gRPC is chosen.
  writeFileSync(
    join(project, 'grpc.mjs'),
    [
      "import { startTelemetry } from 'agent-otel-bridge/telemetry';",
      'try {',
      "  startTelemetry({ env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' } });",
      "  console.log('started');",
      "} catch (error) { console.log(error.name, error.message.includes('exporter-trace-otlp-grpc')); }",
    ].join('\n'),
  );
  expect(execFileSync(process.execPath, ['grpc.mjs'], { cwd: project, encoding: 'utf8' })).toBe(
    'ConfigError true\n',
  );
  // Installed beside it, the client is found: the command goes on to its broker (none listens).
  execFileSync(
    npm,
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      `redis@${pkg.peerDependencies['redis']}`,
    ],
    {
      cwd: project,
      encoding: 'utf8',
    },
  );
  const redis = cli(routeRedis);
  expect(redis.stderr).not.toContain('not installed');
  expect(redis.status).toBe(1);
}, 180_000);
