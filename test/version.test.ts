import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../src/version.js';

it('reports the version of package.json', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  expect(PACKAGE_VERSION).toBe(pkg.version);
});

it('runs from a clone through scripts/agent-otel-bridge, with the right Node.js', () => {
  const result = spawnSync(
    'bash',
    [fileURLToPath(new URL('../scripts/agent-otel-bridge', import.meta.url)), '--version'],
    {
      encoding: 'utf8',
    },
  );
  expect(result.status).toBe(0);
  expect(result.stdout.trim()).toBe(PACKAGE_VERSION);
});
