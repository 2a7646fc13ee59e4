// The nats and redis commands while their broker is killed and restarted mid-stream. Each test runs
// a broker of its own (the machine's nats-server / redis-server on a free port, data on disk), so
// that killing it disturbs no other test.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  natsConsumerInfo,
  publishToNats,
  publishToRedis,
  redisPending,
} from '../helpers/brokers.js';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { startNatsServer, startRedisServer } from '../helpers/private-broker.js';
import type { PrivateBroker } from '../helpers/private-broker.js';
import {
  divergentDuplicates,
  expectedFingerprints,
  waitFor,
  wireFingerprint,
} from '../helpers/wire-spans.js';

const fixture = (name: string) =>
  fileURLToPath(new URL(`../fixtures/behest/${name}.ndjson`, import.meta.url));
const lines = (files: readonly string[]) =>
  files.flatMap((f) => readFileSync(f, 'utf8').trim().split('\n'));
const BEFORE = ['tools-success-failure', 'doom-loop', 'breaker'].map(fixture);
const AFTER = ['cancelled-mid-tool', 'unknown-finish-reason', 'concurrent'].map(fixture);
const ENV = { OTEL_METRIC_EXPORT_INTERVAL: '400', OTEL_BSP_SCHEDULE_DELAY: '100' };

interface Setup {
  readonly start: (dir: string) => Promise<PrivateBroker>;
  publish(url: string, lines: readonly string[]): Promise<void>;
  pending(url: string): Promise<number>;
  args(url: string): string[];
}

const id = randomUUID().slice(0, 8);
const nats: Setup = {
  start: startNatsServer,
  publish: (url, l) => publishToNats(`RESTART_${id}`, `restart.${id}`, l, url),
  pending: async (url) => {
    const info = await natsConsumerInfo(`RESTART_${id}`, 'bridge', url);
    return info.numAckPending;
  },
  args: (url) => [
    'nats',
    '--url',
    url,
    '--stream',
    `RESTART_${id}`,
    '--subject',
    `restart.${id}`,
    '--durable',
    'bridge',
    '--ack-wait-ms',
    '2000',
  ],
};
const redis: Setup = {
  start: startRedisServer,
  publish: (url, l) => publishToRedis(`restart:${id}`, l, url),
  pending: (url) => redisPending(`restart:${id}`, 'bridge', url),
  args: (url) => [
    'redis',
    '--url',
    url,
    '--stream',
    `restart:${id}`,
    '--group',
    'bridge',
    '--consumer',
    'bridge-1',
  ],
};

describe.each([
  ['NATS JetStream', nats],
  ['Redis Streams', redis],
] as const)('%s restarted mid-stream', (name, setup) => {
  const cleanups: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('reconnects, resumes from the durable position and loses nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aob-broker-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const broker = await setup.start(dir);
    cleanups.push(() => broker.stop());
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());

    await setup.publish(broker.url, lines(BEFORE));
    const bridge = startCli(setup.args(broker.url), {
      ...ENV,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
    cleanups.push(() => bridge.stop('SIGKILL'));
    await waitFor(() => receiver.spans.length > 0, 20_000, 'the first spans');

    // The broker dies with messages in flight and acknowledgements outstanding, stays down for a
    // moment, and comes back with its data; more events are published after it is back.
    await broker.kill();
    await waitFor(() => /lost /.test(bridge.stderr()), 10_000, 'the bridge noticing the loss');
    await new Promise((r) => setTimeout(r, 1000));
    await broker.restart();
    await setup.publish(broker.url, lines(AFTER));

    const expected = expectedFingerprints([...BEFORE, ...AFTER]);
    await waitFor(
      () => [...expected].every((f) => receiver.spans.some((s) => wireFingerprint(s) === f)),
      40_000,
      `every run at the receiver after ${name} came back`,
    );
    await waitFor(async () => (await setup.pending(broker.url)) === 0, 20_000, 'nothing pending');
    // Every loss is reported once, and so is its end (a pull may also fail under load).
    const news = bridge.stderr().match(/lost |is back after [\d.]+ s; consuming again/g) ?? [];
    expect(news.length).toBeGreaterThanOrEqual(2);
    expect(news.every((n, i) => (i % 2 === 0 ? n === 'lost ' : n.startsWith('is back')))).toBe(
      true,
    );
    // Redelivered duplicates, if any, are identical to the first copy.
    expect(divergentDuplicates(receiver.spans)).toEqual([]);
    const stopped = await bridge.stop('SIGTERM');
    expect(stopped.code).toBe(0);
  });
});
