// Small things a newcomer meets in the first hour, each as they would meet it: the version however
// asked for, a missing file given to validate, an input whose every line is rejected, and a reader
// that stops early.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../../src/version.js';
import { CLI, runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'first-hour-'));

describe('first hour', () => {
  it.each([['--version'], ['-V'], ['version']])('prints the version for %s', async (flag) => {
    const result = await runCli([flag]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(PACKAGE_VERSION);
  });

  it('says which file validate cannot read, and exits 2 as for any usage error', async () => {
    const result = await runCli(['validate', join(dir, 'missing.ndjson')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('missing.ndjson: no such file');
    expect(result.stderr).not.toMatch(/ENOENT|at .*\.js:\d+/);
  });

  it('exits 1 when every line of an ingest is rejected, and says so', async () => {
    const garbage = join(dir, 'garbage.ndjson');
    writeFileSync(garbage, 'not json\n{"neither":"a known event"}\n[1,2]\n');
    const result = await runCli(['ingest', '--output', 'terminal', garbage]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('every one of the 3 lines was rejected');
    // One rejected line among good ones stays a success without --strict.
    const mixed = join(dir, 'mixed.ndjson');
    writeFileSync(
      mixed,
      `${JSON.stringify({ RunStarted: { run_id: '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d0e', timestamp: '2025-06-01T12:00:00Z' } })}\nnot json\n`,
    );
    expect((await runCli(['ingest', '--output', 'terminal', mixed])).code).toBe(0);
  });

  it('ends quietly when the reader of its output stops early', async () => {
    const log = join(dir, 'long.ndjson');
    const line = JSON.stringify({
      TextDelta: {
        run_id: '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d0e',
        delta: 'x',
        timestamp: '2025-06-01T12:00:00Z',
      },
    });
    writeFileSync(log, `${`${line}\n`.repeat(50_000)}`);
    // `validate FILE | head -1`: the pipe is closed after the first line.
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'validate', log], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.stdout.once('data', () => child.stdout.destroy());
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(result.stderr).not.toContain('EPIPE');
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(result.code).toBe(0);
  });
});
