// The collector failing in each way, for traces and for metrics separately, while the bridge
// consumes Redis: nothing is acknowledged before it is exported, and once the collector recovers
// every run arrives and every message is acknowledged.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { deleteRedisKey, publishToRedis, REDIS_URL, redisPending } from '../helpers/brokers.js';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { ReceiverFault } from '../helpers/otlp-receiver.js';
import {
  divergentCopies,
  expectedFingerprints,
  waitFor,
  wireFingerprint,
} from '../helpers/wire-spans.js';

const FILES = ['tools-success-failure', 'doom-loop', 'concurrent'].map((name) =>
  fileURLToPath(new URL(`../fixtures/behest/${name}.ndjson`, import.meta.url)),
);
const LINES = FILES.flatMap((f) => readFileSync(f, 'utf8').trim().split('\n'));

const kinds: [string, Omit<ReceiverFault, 'path'>][] = [
  ['500', { kind: 'status', status: 500 }],
  ['503', { kind: 'status', status: 503 }],
  ['429 with Retry-After', { kind: 'status', status: 429, retryAfterSeconds: 1 }],
  ['429 without Retry-After', { kind: 'status', status: 429 }],
  ['no answer', { kind: 'hang' }],
  ['closed connections', { kind: 'close' }],
];
const scenarios = (['/v1/traces', '/v1/metrics'] as const).flatMap((path) =>
  kinds.map(([name, fault]) => [`${path}: ${name}`, { ...fault, path }] as const),
);

/**
 * The redis command on `key`, exporting to `endpoint` with short intervals and timeouts. It names
 * itself after the key, so that its spans are told from any other process's that reach the port.
 */
function startBridge(key: string, endpoint: string) {
  return startCli(
    ['redis', '--url', REDIS_URL, '--stream', key, '--group', 'bridge', '--consumer', 'c1'],
    {
      OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${key}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
      OTEL_METRIC_EXPORT_INTERVAL: '400',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
  );
}

describe.concurrent('collector faults', () => {
  for (const [name, fault] of scenarios) {
    it(`${name}: holds acknowledgements, then loses nothing`, async ({ expect }) => {
      const key = `aob:faults:${randomUUID().slice(0, 8)}`;
      const receiver = await startOtlpReceiver();
      receiver.fault = fault;
      await publishToRedis(key, LINES);
      const cli = startBridge(key, receiver.url);
      try {
        // Four refusals: more than the exporter's own retries absorb, so the bridge sees failed exports.
        await waitFor(() => receiver.refused >= 4, 20_000, 'the fault exercised four times');
        // Nothing is acknowledged while one signal cannot be exported: every message is read and
        // every one stays pending (one acknowledged would keep the count below the total).
        await waitFor(
          async () => (await redisPending(key, 'bridge')) === LINES.length,
          20_000,
          `all ${LINES.length} messages read and none acknowledged during the fault`,
        );
        receiver.fault = undefined;
        const expected = expectedFingerprints(FILES);
        await waitFor(
          () =>
            [...expected].every((f) =>
              (receiver.spansByInstance.get(key) ?? []).some((s) => wireFingerprint(s) === f),
            ),
          45_000,
          'every span after recovery',
        );
        await waitFor(async () => (await redisPending(key, 'bridge')) === 0, 30_000, 'all acked');
        const own = receiver.spansByInstance.get(key) ?? [];
        const others = [...receiver.spansByInstance.keys()].filter((k) => k !== key);
        const divergent = divergentCopies(own);
        if (divergent.length > 0 || others.length > 0)
          console.log(
            `${name}: spans also from ${others.join(', ')}; the bridge said\n${cli.stderr()}`,
          );
        expect(divergent).toEqual([]);
        const stopped = await cli.stop('SIGTERM');
        expect(stopped.code).toBe(0);
        // Each outage is reported once and its end too (an export already in flight when the
        // collector recovers may fail and open a second, short one).
        const news = stopped.stderr.match(/export (outage|recovered)/g) ?? [];
        expect(news.length).toBeGreaterThan(0);
        expect(
          news.every((n, i) => n === (i % 2 === 0 ? 'export outage' : 'export recovered')),
        ).toBe(true);
        expect(news.at(-1)).toBe('export recovered');
      } finally {
        await cli.stop('SIGKILL');
        await receiver.close();
        await deleteRedisKey(key);
      }
    }, 90_000);
  }

  it('starts while the collector is down and delivers everything once it is up', async ({
    expect,
  }) => {
    const key = `aob:faults:${randomUUID().slice(0, 8)}`;
    const receiver = await startOtlpReceiver();
    await receiver.stopListening();
    await publishToRedis(key, LINES);
    const cli = startBridge(key, receiver.url);
    try {
      await cli.waitForStderr(/export outage: /, 30_000);
      await waitFor(
        async () => (await redisPending(key, 'bridge')) === LINES.length,
        20_000,
        `all ${LINES.length} messages read and none acknowledged while the collector is down`,
      );
      await receiver.listenAgain();
      const expected = expectedFingerprints(FILES);
      await waitFor(
        () => [...expected].every((f) => receiver.spans.some((s) => wireFingerprint(s) === f)),
        45_000,
        'every span once the collector is up',
      );
      await waitFor(async () => (await redisPending(key, 'bridge')) === 0, 30_000, 'all acked');
      expect((await cli.stop('SIGTERM')).code).toBe(0);
    } finally {
      await cli.stop('SIGKILL');
      await receiver.close();
      await deleteRedisKey(key);
    }
  }, 90_000);
});
