// What `npm publish` would ship: the built code with the sources its maps point at, the licence
// and notices, no tests; built before packing; only what the library runs on as dependencies.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  license: string;
};

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
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const project = mkdtempSync(join(tmpdir(), 'aob-consumer-'));
  try {
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
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}, 120_000);
