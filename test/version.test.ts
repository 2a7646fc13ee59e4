import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../src/version.js';

it('reports the version of package.json', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  expect(PACKAGE_VERSION).toBe(pkg.version);
});
