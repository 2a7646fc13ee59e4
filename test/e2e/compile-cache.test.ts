// The CLI and its worker threads turn on Node's compile cache before their code is compiled, so a
// start reuses what the last one compiled; where the cache cannot be used, the CLI runs as before.
// Whether a file's cached code was used is read from Node's own account of its compile cache
// (`NODE_DEBUG_NATIVE=COMPILE_CACHE`), the only outside view of it.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, summaryWithoutTiming } from '../helpers/cli.js';
import { RUN_A, RUN_B, toolRun } from '../helpers/behest-lines.js';

const dir = mkdtempSync(join(tmpdir(), 'aob-compile-cache-'));
const input = join(dir, 'events.ndjson');
writeFileSync(input, `${[...toolRun(RUN_A), ...toolRun(RUN_B)].join('\n')}\n`);
const NO_EXPORT = { OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' };
// Three shares of a file: the main thread's and two worker threads'.
const ingest = ['ingest', '--workers', '3', '--json', input];

/** The bundle's files whose cached code Node took, from its compile cache's account in `stderr`. */
function cachedFiles(stderr: string): string[] {
  return [
    ...stderr.matchAll(
      /V8 code cache for ESM \S*\/dist\/cli\/(\S+?)(?:-[A-Z0-9]{8})?\.js was accepted/g,
    ),
  ]
    .map((m) => m[1]!)
    .sort();
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the compile cache', () => {
  it('is used on the next start, by the main thread and by each worker thread', async () => {
    // Where the user names no directory (`NODE_COMPILE_CACHE`, which worker threads would
    // inherit), the system's temporary one: here one of the test's own.
    const temporary = join(dir, 'tmp');
    mkdirSync(temporary);
    const first = await runCli(ingest, { ...NO_EXPORT, TMPDIR: temporary });
    expect(first.code, first.stderr).toBe(0);
    expect(readdirSync(join(temporary, 'node-compile-cache'))).not.toHaveLength(0);
    const second = await runCli(ingest, {
      ...NO_EXPORT,
      TMPDIR: temporary,
      NODE_DEBUG_NATIVE: 'COMPILE_CACHE',
    });
    expect(second.code, second.stderr).toBe(0);
    expect(summaryWithoutTiming(second.stdout)).toEqual(summaryWithoutTiming(first.stdout));
    const cached = cachedFiles(second.stderr);
    // The entry itself is compiled before it turns the cache on; the CLI's code after it.
    expect(cached).toContain('workers/run-cli');
    // Only a worker thread loads its own code (the main thread runs the first share itself).
    expect(cached.filter((file) => file === 'workers/ingest-thread')).toHaveLength(2);
  });

  it('is not needed: a cache that cannot be written, or one turned off, leaves the CLI as it was', async () => {
    const notADirectory = join(dir, 'a-file');
    writeFileSync(notADirectory, '');
    const plain = await runCli(ingest, { ...NO_EXPORT, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(plain.code, plain.stderr).toBe(0);
    expect(summaryWithoutTiming(plain.stdout)).toMatchObject({ runs: { completed: 2 } });
    for (const env of [
      { NODE_COMPILE_CACHE: notADirectory },
      { NODE_DISABLE_COMPILE_CACHE: '1', NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
    ]) {
      const result = await runCli(ingest, { ...NO_EXPORT, ...env });
      expect(result.code, result.stderr).toBe(0);
      expect(summaryWithoutTiming(result.stdout)).toEqual(summaryWithoutTiming(plain.stdout));
      expect(cachedFiles(result.stderr)).toEqual([]);
    }
  });
});
