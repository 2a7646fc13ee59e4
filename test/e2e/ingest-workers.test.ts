// `ingest --workers N` gives what one thread gives: the same spans (ids, times, attributes,
// status, events), the same runs and rejections, every span delivered, each run counted once in
// `agent.runs` over the workers' metrics; behest runs are split between workers by run id, logs of
// runtimes without run ids stay whole on one worker. Files are read by every worker (each takes
// its own lines); stdin is read by the main thread, which hands the lines over.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { partitionOf } from '../../src/partitions/partition-of.js';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { runCli } from '../helpers/cli.js';
import { startOtlpReceiver, totalCounted } from '../helpers/otlp-receiver.js';
import type { OtlpSpan } from '../helpers/otlp-protobuf.js';
import {
  divergentDuplicates,
  timelessFingerprint,
  traceShapes,
  wireFingerprint,
} from '../helpers/wire-spans.js';

const dir = mkdtempSync(join(tmpdir(), 'workers-'));
const behestLog = join(dir, 'behest.ndjson');
const behestLines = createDemoLines(120, Date.UTC(2025, 5, 1, 12));
writeFileSync(behestLog, `${behestLines.join('\n')}\n`);
/** behest runs are timed by their own timestamps: their spans must match to the nanosecond. */
const STAMPED = new Set(
  behestLines.map((l) => /"run_id":"([^"]+)"/.exec(l)![1]!.replaceAll('-', '')),
);
const view = (s: OtlpSpan) =>
  STAMPED.has(s.traceId) ? wireFingerprint(s) : timelessFingerprint(s);
const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));
const FILES = [
  behestLog,
  fixture('oxi/agent-loop.ndjson'),
  fixture('agent-sdk/loop.ndjson'),
  fixture('crabtalk/loop.ndjson'),
  fixture('behest/garbage.ndjson'),
];

async function ingest(workers: number) {
  const receiver = await startOtlpReceiver();
  try {
    const result = await runCli(['ingest', '--workers', String(workers), ...FILES], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=ingest-a',
    });
    return {
      result,
      spans: new Set(receiver.spans.map(view)),
      stamped: receiver.spans.filter((x) => STAMPED.has(x.traceId)).length,
      spanCount: receiver.spans.length,
      instances: [...receiver.metricsByInstance.keys()].sort(),
      counted: totalCounted(receiver),
    };
  } finally {
    await receiver.close();
  }
}

describe('ingest --workers', () => {
  it('gives the spans, runs, rejections and delivery of one thread', async () => {
    const one = await ingest(1);
    const three = await ingest(3);
    expect(one.result.code).toBe(0);
    expect(three.result.code).toBe(0);
    // Each worker's metrics are a series of their own (its instance id suffixed).
    expect(one.instances).toEqual(['ingest-a']);
    expect(three.instances).toEqual(['ingest-a-w1', 'ingest-a-w2', 'ingest-a-w3']);
    const onlyIn = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x));
    expect([onlyIn(three.spans, one.spans), onlyIn(one.spans, three.spans)]).toEqual([[], []]);
    expect(three.spanCount).toBe(one.spanCount);
    expect(one.stamped).toBeGreaterThan(500);
    const summary = (out: string) =>
      out.split('\n').filter((l) => /^\s+(events|runs|delivered)\b/.test(l));
    expect(summary(three.result.stdout)).toEqual(summary(one.result.stdout));
    expect(three.result.stdout).toMatch(/delivered (\d+) of \1 spans/);
    // Rejections are said with their file and line, whichever worker met them.
    const rejections = (err: string) =>
      err
        .split('\n')
        .filter((l) => l.includes(': rejected: '))
        .sort();
    expect(rejections(three.result.stderr)).toEqual(rejections(one.result.stderr));
    expect(rejections(one.result.stderr).length).toBeGreaterThan(0);
    const runs = Number(
      /runs\s+completed (\d+)\s+failed (\d+)\s+cancelled (\d+)\s+abandoned (\d+)/
        .exec(one.result.stdout)!
        .slice(1)
        .reduce((t, n) => t + Number(n), 0),
    );
    expect(one.counted).toBe(runs);
    expect(three.counted).toBe(runs);
  }, 60_000);

  it('keeps apart the runs of logs without run ids that begin alike, whichever worker reads them', async () => {
    // A crabtalk JSON log cut in the middle of its first run, and whole copies of it: their first
    // runs derive the same id, so the copies' are renamed while the cut one's is open (as one
    // thread reads them). The names would put them on different workers if placed by name.
    const log = readFileSync(fixture('crabtalk/run.ndjson'), 'utf8').trim().split('\n');
    const named = (name: string, lines: readonly string[]) => {
      const file = join(dir, name);
      writeFileSync(file, `${lines.join('\n')}\n`);
      return file;
    };
    const cut = named('cut.ndjson', log.slice(0, 10));
    let other = 0;
    while (partitionOf(join(dir, `whole-${other}.ndjson`), 2) === partitionOf(cut, 2)) other += 1;
    const files = [cut, named(`whole-${other}.ndjson`, log), named('whole-x.ndjson', log)];
    const run = async (workers: number, inputs = files) => {
      const receiver = await startOtlpReceiver();
      try {
        const result = await runCli(['ingest', '--workers', String(workers), ...inputs], {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        });
        expect(result.code).toBe(0);
        return receiver.spans.slice();
      } finally {
        await receiver.close();
      }
    };
    const one = await run(1);
    const two = await run(2);
    expect(divergentDuplicates(one)).toEqual([]);
    expect(divergentDuplicates(two)).toEqual([]);
    // The three inputs are read side by side, so which of them keeps the ids derived for its runs
    // (the others are renamed) depends on which is read first, in one thread as in two. What may
    // not happen is a run of one input merged into another's, or taken for a late copy of it:
    // every input gives the runs it gives alone, each a trace of its own. Compared as shapes,
    // without ids.
    const whole = traceShapes(await run(1, [files[1]!]));
    const expected = [...whole, ...whole, ...traceShapes(await run(1, [cut]))].sort();
    expect(traceShapes(one).sort()).toEqual(expected);
    expect(traceShapes(two).sort()).toEqual(expected);
  }, 60_000);

  it('gives the same from stdin, whose lines the main thread hands over, as from the file every worker reads', async () => {
    const run = async (args: string[], stdin?: string) => {
      const receiver = await startOtlpReceiver();
      try {
        const result = await runCli(
          ['ingest', '--workers', '2', ...args],
          { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
          stdin,
        );
        expect(result.code).toBe(0);
        return {
          spans: new Set(receiver.spans.map(view)),
          count: receiver.spans.length,
          summary: result.stdout.split('\n').filter((l) => /^\s+(events|runs)\b/.test(l)),
        };
      } finally {
        await receiver.close();
      }
    };
    const fromFile = await run([behestLog]);
    const fromStdin = await run(['-'], readFileSync(behestLog, 'utf8'));
    expect(fromStdin.count).toBe(fromFile.count);
    expect(fromFile.count).toBeGreaterThan(500);
    expect([...fromStdin.spans].filter((x) => !fromFile.spans.has(x))).toEqual([]);
    expect(fromStdin.summary).toEqual(fromFile.summary);
  }, 60_000);

  // /proc/self/mem is a regular file that every read of fails: read by the workers themselves.
  it.runIf(process.platform === 'linux')(
    'fails as one thread does when a file it reads fails, and does not wait',
    async () => {
      const args = ['ingest', '/proc/self/mem'];
      const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' };
      const one = await runCli(args, env);
      const two = await runCli([...args, '--workers', '2'], env);
      expect([one.code, two.code]).toEqual([1, 1]);
      expect(one.stderr).toContain('agent-otel-bridge: EIO');
      expect(two.stderr).toContain('agent-otel-bridge: EIO');
    },
    30_000,
  );

  it('owes no spans when traces are not exported', async () => {
    const result = await runCli(['ingest', '--workers', '2', '--output', 'otlp', FILES[0]!], {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('not delivered');
  });

  it('needs OTLP output', async () => {
    const result = await runCli(['ingest', '--workers', '2', '--output', 'terminal', FILES[0]!]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--workers needs OTLP output');
  });
});
