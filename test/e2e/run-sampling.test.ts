// Whole-run sampling end to end, to a real OTLP receiver: `ingest --sample-ratio 0` exports the
// runs worth keeping and nothing else, counts every run in its metrics and exits 0 (spans sampled
// out are not owed); a broker consumer acknowledges the messages of dropped runs as it does those
// of exported ones (real NATS JetStream and Redis).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  deleteNatsStream,
  deleteRedisKey,
  natsConsumerInfo,
  publishToNats,
  publishToRedis,
  REDIS_URL,
  redisPending,
  natsConsumerArgs,
} from '../helpers/brokers.js';
import { usageRun } from '../helpers/behest-lines.js';
import { runCli, startCli } from '../helpers/cli.js';
import { fixtureCopies } from '../helpers/fixture-logs.js';
import { createHarness } from '../helpers/harness.js';
import { startOtlpReceiver, totalCounted } from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/wire-spans.js';

const id = (n: number) => `6d1e2f3a-0000-4b6c-8d7e-${String(n).padStart(12, '0')}`;

/** Failures, cancellations, a doom loop and a breaker from the fixtures, big runs and plain ones. */
function corpus(): string {
  const plain = Array.from({ length: 30 }, (_, i) =>
    usageRun(id(i), 'openai', 'gpt-4o-mini', [{ input: 500, output: 50 }]),
  );
  const big = Array.from({ length: 4 }, (_, i) =>
    usageRun(id(100 + i), 'openai', 'gpt-4o-mini', [{ input: 300_000, output: 5_000 }]),
  );
  return [
    fixtureCopies('tools-success-failure', '5b0c1a2e-1111-4a6b-8c7d-000000000001', 3, 1),
    fixtureCopies('doom-loop', '5b0c1a2e-2222-4a6b-8c7d-000000000002', 2, 2),
    fixtureCopies('breaker', '5b0c1a2e-3333-4a6b-8c7d-000000000003', 2, 3),
    fixtureCopies('cancelled-mid-tool', '5b0c1a2e-4444-4a6b-8c7d-000000000004', 2, 4),
    `${plain.join('\n')}\n`,
    `${big.join('\n')}\n`,
  ].join('');
}

/**
 * The runs the documented rules keep (docs/sampling.md), read from the runs mapped in process:
 * not completed, or a doom loop or breaker trip on the run, or at least `tokens` tokens.
 */
function worthKeeping(ndjson: string, tokens: number) {
  const h = createHarness();
  h.feed(ndjson);
  h.sink.endOpenRuns('end_of_input');
  const roots = h.spans().filter((s) => s.attributes['agent.run.id'] !== undefined);
  const keep = roots.filter(
    (r) =>
      r.attributes['agent.run.outcome'] !== 'completed' ||
      r.events.some(
        (e) => e.name.startsWith('agent.doom_loop') || e.name.startsWith('agent.compaction'),
      ) ||
      Number(r.attributes['gen_ai.usage.input_tokens'] ?? 0) +
        Number(r.attributes['gen_ai.usage.output_tokens'] ?? 0) >=
        tokens,
  );
  const spansOf = (traceId: string) =>
    h.spans().filter((s) => s.spanContext().traceId === traceId).length;
  return {
    runs: roots.length,
    kept: new Map(keep.map((r) => [r.spanContext().traceId, spansOf(r.spanContext().traceId)])),
  };
}

const SAMPLING = ['--sample-ratio', '0', '--keep-tokens-above', '100000'];

describe('whole-run sampling', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('ingest exports exactly the runs worth keeping, whole, counts every run and exits 0', async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const ndjson = corpus();
    const expected = worthKeeping(ndjson, 100_000);
    expect(expected.kept.size).toBeGreaterThanOrEqual(10);
    expect(expected.kept.size).toBeLessThan(expected.runs);
    const file = join(mkdtempSync(join(tmpdir(), 'sampling-')), 'runs.ndjson');
    writeFileSync(file, ndjson);
    const result = await runCli(['ingest', file, ...SAMPLING], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/delivered (\d+) of \1 spans \(\d+ more sampled out/);
    const byTrace = new Map<string, number>();
    for (const span of receiver.spans)
      byTrace.set(span.traceId, (byTrace.get(span.traceId) ?? 0) + 1);
    expect(byTrace).toEqual(expected.kept);
    expect(totalCounted(receiver)).toBe(expected.runs);
  });

  it.each([
    [
      'NATS JetStream',
      () => {
        const tag = randomUUID().slice(0, 8);
        const stream = `AOB_SAMPLE_${tag}`;
        const subject = `agents.${tag}.events`;
        return {
          publish: (lines: string[]) => publishToNats(stream, subject, lines),
          pending: async () => (await natsConsumerInfo(stream, 'bridge')).numAckPending,
          args: natsConsumerArgs(stream, subject, 'bridge'),
          cleanup: () => deleteNatsStream(stream),
        };
      },
    ],
    [
      'Redis Streams',
      () => {
        const key = `aob:sample:${randomUUID().slice(0, 8)}`;
        return {
          publish: (lines: string[]) => publishToRedis(key, lines),
          pending: () => redisPending(key, 'bridge'),
          args: [
            'redis',
            '--url',
            REDIS_URL,
            '--stream',
            key,
            '--group',
            'bridge',
            '--consumer',
            'c1',
          ],
          cleanup: () => deleteRedisKey(key),
        };
      },
    ],
  ])('%s: acknowledges the messages of dropped runs as of exported ones', async (_name, make) => {
    const broker = make();
    const receiver = await startOtlpReceiver();
    cleanups.push(
      () => broker.cleanup(),
      () => receiver.close(),
    );
    const ndjson = corpus();
    const expected = worthKeeping(ndjson, 100_000);
    const lines = ndjson.trim().split('\n');
    await broker.publish(lines);
    const cli = startCli([...broker.args, ...SAMPLING], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRIC_EXPORT_INTERVAL: '400',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    cleanups.push(() => cli.stop('SIGKILL'));
    const traces = () => new Set(receiver.spans.map((s) => s.traceId));
    await waitFor(
      () => [...expected.kept.keys()].every((t) => traces().has(t)),
      30_000,
      'every run worth keeping at the receiver',
    );
    await waitFor(async () => (await broker.pending()) === 0, 30_000, 'every message acknowledged');
    expect([...traces()].sort()).toEqual([...expected.kept.keys()].sort());
    await waitFor(() => totalCounted(receiver) === expected.runs, 10_000, 'every run counted');
    expect((await cli.stop('SIGTERM')).code).toBe(0);
  });
});
