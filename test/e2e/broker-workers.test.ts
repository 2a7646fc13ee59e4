// `redis --partitions P --workers N` on the real Redis of this machine: N consumer processes, each
// an instance of its own holding partitions through the leases, give every run one trace; a
// worker SIGKILLed is started again while the other takes its partitions; SIGTERM stops them all.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { publishToRedis, REDIS_URL } from '../helpers/brokers.js';
import { startCli } from '../helpers/cli.js';
import type { OtlpMetric } from '../helpers/otlp-protobuf.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import {
  divergentDuplicates,
  expectedFingerprints,
  waitFor,
  wireFingerprint,
} from '../helpers/wire-spans.js';

const PARTITIONS = 4;
const ENV = {
  OTEL_METRIC_EXPORT_INTERVAL: '400',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  AGENT_OTEL_BRIDGE_REORDER_WINDOW_MS: '300',
  AGENT_OTEL_BRIDGE_LATE_GRACE_MS: '500',
};

const owned = (metrics: readonly OtlpMetric[]) =>
  metrics
    .filter((m) => m.name === 'agent_bridge.partitions.owned')
    .flatMap((m) => m.points)
    .reduce((t, p) => t + (p.value as number), 0);

/** Process ids of the workers of `parent` (direct children). */
function childrenOf(parent: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(parent)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map(Number);
  } catch {
    return [];
  }
}

describe('broker worker processes', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('shares the partitions among worker processes, restarts a dead one, stops them all', async () => {
    const key = `aob:workers:${randomUUID().slice(0, 8)}`;
    const receiver = await startOtlpReceiver();
    cleanups.push(
      async () => {
        const client = createClient({ url: REDIS_URL });
        await client.connect();
        for await (const keys of client.scanIterator({ MATCH: `${key}*`, COUNT: 1000 }))
          if (keys.length > 0) await client.del(keys);
        client.destroy();
      },
      () => receiver.close(),
    );
    const lines = createDemoLines(200, Date.UTC(2025, 5, 5, 12));
    const dir = mkdtempSync(join(tmpdir(), 'broker-workers-'));
    writeFileSync(join(dir, 'runs.ndjson'), `${lines.join('\n')}\n`);
    const expected = expectedFingerprints([join(dir, 'runs.ndjson')]);
    const env = {
      ...ENV,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=node-a',
    };
    await publishToRedis(key, lines, REDIS_URL, 256);
    const router = startCli(
      ['route', 'redis', '--stream', key, '--partitions', String(PARTITIONS)],
      env,
    );
    cleanups.push(() => router.stop('SIGKILL'));
    const bridge = startCli(
      [
        'redis',
        '--stream',
        key,
        '--partitions',
        String(PARTITIONS),
        '--workers',
        '2',
        '--lease-ms',
        '1500',
        '--instance-id',
        'node-a',
      ],
      env,
    );
    cleanups.push(async () => {
      for (const pid of childrenOf(bridge.pid!)) process.kill(pid, 'SIGKILL');
      await bridge.stop('SIGKILL');
    });
    const arrived = () => {
      const seen = new Set(receiver.spans.map(wireFingerprint));
      return [...expected].every((f) => seen.has(f));
    };
    await waitFor(arrived, 60_000, 'every span').catch((error: unknown) => {
      console.log(bridge.stderr());
      throw error;
    });
    expect(new Set(receiver.spans.map(wireFingerprint))).toEqual(expected);
    expect(divergentDuplicates(receiver.spans)).toEqual([]);
    // Two instances of their own, holding every partition between them.
    const ownedBy = (id: string) => owned(receiver.metricsByInstance.get(id) ?? []);
    await waitFor(
      () => ownedBy('node-a-w1') > 0 && ownedBy('node-a-w1') + ownedBy('node-a-w2') === PARTITIONS,
      15_000,
      'both workers holding partitions',
    );
    expect(bridge.stderr()).toContain('starting 2 worker processes (node-a-w1 … node-a-w2)');
    // Each owned partition's lag (all read by now), and each takeover timed.
    const points = (name: string) =>
      ['node-a-w1', 'node-a-w2'].flatMap((id) =>
        (receiver.metricsByInstance.get(id) ?? [])
          .filter((m) => m.name === name)
          .flatMap((m) => m.points),
      );
    await waitFor(
      () =>
        points('agent_bridge.partitions.lag').length === PARTITIONS &&
        points('agent_bridge.partitions.lag').every((p) => p.value === 0),
      15_000,
      'every partition lag 0',
    );
    expect(
      new Set(
        points('agent_bridge.partitions.lag').map((p) => p.attributes['agent_bridge.partition']),
      ),
    ).toEqual(new Set(['0', '1', '2', '3']));
    expect(
      points('agent_bridge.partitions.takeover.duration').reduce(
        (t, p) => t + (p.value as { count: number }).count,
        0,
      ),
    ).toBeGreaterThanOrEqual(PARTITIONS);

    // A worker killed: started again.
    const [victim] = childrenOf(bridge.pid!);
    expect(victim).toBeDefined();
    process.kill(victim!, 'SIGKILL');
    await bridge.waitForStderr(/worker \d exited \(SIGKILL\); starting it again/, 10_000);
    await waitFor(
      () => childrenOf(bridge.pid!).length === 2 && !childrenOf(bridge.pid!).includes(victim!),
      10_000,
      'the worker started again',
    );
    await waitFor(
      () => bridge.stderr().split('instance node-a-w').length - 1 === 3,
      15_000,
      'the worker consuming again',
    );

    // SIGTERM: every worker stops gracefully, and so does the parent.
    const workers = childrenOf(bridge.pid!);
    const result = await bridge.stop('SIGTERM');
    expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  }, 120_000);
});
