// The CLI starts itself again with 16 MiB semi-spaces where its work is long (a command that runs
// until stopped, files of 16 MiB or more), in the same process: the same pid, so signals, stdio and
// the exit status are the caller's as before. A preloaded probe (NODE_OPTIONS, which the second
// start keeps) says each start of the main thread: its pid and whether it has the flag.
import { mkdtempSync, openSync, closeSync, ftruncateSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startCli, summaryWithoutTiming } from '../helpers/cli.js';
import { RUN_A, toolRun } from '../helpers/behest-lines.js';
import {
  LARGE_INPUT_BYTES,
  SEMI_SPACE_FLAG,
  WORKER_YOUNG_GENERATION_MIB,
} from '../../src/cli/young-generation.js';

const dir = mkdtempSync(join(tmpdir(), 'aob-young-generation-'));
const probe = join(dir, 'probe.mjs');
writeFileSync(
  probe,
  `import { isMainThread, resourceLimits } from 'node:worker_threads';
if (isMainThread)
  process.stderr.write(\`probe pid=\${process.pid} flag=\${process.execArgv.includes(${JSON.stringify(SEMI_SPACE_FLAG)})}\\n\`);
else process.stderr.write(\`probe worker young=\${resourceLimits.maxYoungGenerationSizeMb ?? 'none'}\\n\`);
`,
);
const small = join(dir, 'small.ndjson');
writeFileSync(small, `${toolRun(RUN_A).join('\n')}\n`);
// A large file: the same run, then a line of NUL bytes up to the size (sparse: nothing written).
const large = join(dir, 'large.ndjson');
writeFileSync(large, `${toolRun(RUN_A).join('\n')}\n`);
const fd = openSync(large, 'r+');
ftruncateSync(fd, LARGE_INPUT_BYTES);
closeSync(fd);

const NO_EXPORT = { OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' };
const PROBED = { ...NO_EXPORT, NODE_OPTIONS: `--import=${probe}` };

/** Each start of the main thread the probe saw. */
function starts(stderr: string): { pid: number; flag: boolean }[] {
  return [...stderr.matchAll(/^probe pid=(\d+) flag=(true|false)$/gm)].map((m) => ({
    pid: Number(m[1]),
    flag: m[2] === 'true',
  }));
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the young generation of the CLI', () => {
  it('is started again with the flag, in the same process, for files of 16 MiB or more', async () => {
    const result = await runCli(['validate', '--quiet', large], PROBED);
    const seen = starts(result.stderr);
    expect(seen, result.stderr).toHaveLength(2);
    expect(seen[0]).toMatchObject({ flag: false });
    expect(seen[1]).toEqual({ pid: seen[0]!.pid, flag: true });
    // What the command did and how it exited are those of a run without a second start.
    const once = await runCli(['validate', '--quiet', large], {
      ...PROBED,
      NODE_OPTIONS: `--import=${probe} --max-semi-space-size=64`,
    });
    expect(starts(once.stderr)).toHaveLength(1);
    expect(result.code).toBe(once.code);
    expect(result.stdout).toEqual(once.stdout);
    expect(result.stdout).toMatch(/ lines: \d+ accepted, 1 not accepted\n/);
  });

  it('counts stdin that is a file (`< events.ndjson`), which the second start reads whole', async () => {
    const redirected = await runCli(['ingest', '--json'], PROBED, { file: large });
    expect(redirected.code, redirected.stderr).toBe(0);
    expect(starts(redirected.stderr).map((s) => s.flag)).toEqual([false, true]);
    const named = await runCli(['ingest', '--json', large], {
      ...PROBED,
      NODE_OPTIONS: `--import=${probe} --max-semi-space-size=64`,
    });
    expect(summaryWithoutTiming(redirected.stdout)).toEqual(summaryWithoutTiming(named.stdout));
    expect(summaryWithoutTiming(redirected.stdout)).toMatchObject({ runs: { completed: 1 } });
  });

  it('is left as V8 sizes it for a small file, and where the user chose a size', async () => {
    const plain = await runCli(['ingest', '--json', small], PROBED);
    expect(plain.code, plain.stderr).toBe(0);
    expect(starts(plain.stderr).map((s) => s.flag)).toEqual([false]);
    for (const flag of ['--max-semi-space-size=32', '--max_semi_space_size=8']) {
      const chosen = await runCli(['ingest', '--json', large], {
        ...PROBED,
        NODE_OPTIONS: `--import=${probe} ${flag}`,
      });
      expect(starts(chosen.stderr).map((s) => s.flag)).toEqual([false]);
    }
  });

  it("gives each ingest worker thread the CLI's semi-spaces without a second start, unless the user chose a size", async () => {
    const workers = (stderr: string) =>
      [...stderr.matchAll(/^probe worker young=(\S+)$/gm)].map((m) => m[1]);
    // Three shares of a file: the main thread runs the first (with the main thread's young
    // generation, as one worker does), two worker threads the others.
    const small3 = await runCli(['ingest', '--workers', '3', '--json', small], PROBED);
    expect(small3.code, small3.stderr).toBe(0);
    expect(starts(small3.stderr).map((s) => s.flag)).toEqual([false]);
    expect(workers(small3.stderr)).toEqual([
      String(WORKER_YOUNG_GENERATION_MIB),
      String(WORKER_YOUNG_GENERATION_MIB),
    ]);
    const chosen = await runCli(['ingest', '--workers', '3', '--json', small], {
      ...PROBED,
      NODE_OPTIONS: `--import=${probe} --max-semi-space-size=32`,
    });
    expect(chosen.code, chosen.stderr).toBe(0);
    expect(workers(chosen.stderr)).toHaveLength(2);
    expect(workers(chosen.stderr)).not.toContain(String(WORKER_YOUNG_GENERATION_MIB));
  });

  it('lets a long-running command be stopped by a signal to the pid its caller started', async () => {
    const cli = startCli(['serve', '--port', '0'], PROBED);
    await cli.waitForStderr(/listening on/);
    const seen = starts(cli.stderr());
    expect(seen).toEqual([
      { pid: cli.pid, flag: false },
      { pid: cli.pid, flag: true },
    ]);
    const stopped = await cli.stop('SIGTERM');
    expect(stopped.code, stopped.stderr).toBe(0);
  });
});
