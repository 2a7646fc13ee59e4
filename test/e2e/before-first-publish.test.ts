// Bridges started before the runtime published anything, on the real NATS JetStream and Redis of
// this machine: a plain consumer, and the scale-out deployment (routers and an instance), wait for
// the stream instead of exiting, then export every run once it is published, and stop cleanly.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { NATS_URL, publishToNats, publishToRedis, REDIS_URL } from '../helpers/brokers.js';
import { startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { natsTopology, redisTopology } from '../helpers/partition-topology.js';
import { expectedFingerprints, waitFor, wireFingerprint } from '../helpers/wire-spans.js';

const ENV = {
  OTEL_METRIC_EXPORT_INTERVAL: '400',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  AGENT_OTEL_BRIDGE_REORDER_WINDOW_MS: '300',
  AGENT_OTEL_BRIDGE_LATE_GRACE_MS: '500',
};
const dir = mkdtempSync(join(tmpdir(), 'before-publish-'));

function expectedOf(lines: readonly string[]): Set<string> {
  const file = join(dir, `${randomUUID()}.ndjson`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return expectedFingerprints([file]);
}

interface Plain {
  args: string[];
  publish(lines: readonly string[]): Promise<void>;
  cleanup(): Promise<void>;
}

function plainNats(): Plain {
  const id = randomUUID().slice(0, 8);
  const stream = `AOB_EARLY_${id}`;
  const subject = `early.${id}.events`;
  return {
    args: ['nats', '--url', NATS_URL, '--stream', stream, '--subject', subject],
    publish: (lines) => publishToNats(stream, subject, lines),
    async cleanup() {
      const nc = await connect({ servers: NATS_URL });
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
      await nc.drain();
    },
  };
}

function plainRedis(): Plain {
  const key = `aob:early:${randomUUID().slice(0, 8)}`;
  return {
    args: ['redis', '--url', REDIS_URL, '--stream', key],
    publish: (lines) => publishToRedis(key, lines),
    async cleanup() {
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      await client.del(key);
      client.destroy();
    },
  };
}

const TOPOLOGY = { partitions: 3, leaseMillis: 1500, ackWaitMillis: 1500 };

describe.each([
  ['NATS JetStream', plainNats, () => natsTopology(TOPOLOGY)],
  ['Redis Streams', plainRedis, () => redisTopology(TOPOLOGY)],
] as const)('%s, bridges started before the first publish', (_name, makePlain, makeTopology) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('a consumer waits for the stream, then exports every run and stops with exit 0', async () => {
    const plain = makePlain();
    const receiver = await startOtlpReceiver();
    cleanups.push(
      () => plain.cleanup(),
      () => receiver.close(),
    );
    const cli = startCli(plain.args, { ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    cleanups.push(() => cli.stop('SIGKILL'));
    // Still there a while later, not exited.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const lines = createDemoLines(20, Date.UTC(2025, 8, 1, 12));
    await plain.publish(lines);
    const expected = expectedOf(lines);
    await waitFor(
      () => [...expected].every((f) => receiver.spans.some((s) => wireFingerprint(s) === f)),
      30_000,
      'every span of the runs published after the start',
    );
    const result = await cli.stop('SIGTERM');
    expect(result.code, result.stderr).toBe(0);
  });

  it('routers and an instance wait for the stream, then export every run and stop with exit 0', async () => {
    const topology = makeTopology();
    const receiver = await startOtlpReceiver();
    cleanups.push(
      () => topology.cleanup(),
      () => receiver.close(),
    );
    const env = { ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const processes: RunningCli[] = [
      startCli(topology.router(1), env),
      startCli(topology.instance(1), env),
    ];
    for (const cli of processes) cleanups.push(() => cli.stop('SIGKILL'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const lines = createDemoLines(20, Date.UTC(2025, 8, 2, 12));
    await topology.publish(lines);
    const expected = expectedOf(lines);
    await waitFor(
      () => [...expected].every((f) => receiver.spans.some((s) => wireFingerprint(s) === f)),
      30_000,
      'every span of the runs published after the start',
    ).catch((error: unknown) => {
      console.log(processes.map((p) => p.stderr()).join('\n---\n'));
      throw error;
    });
    for (const cli of processes.reverse()) {
      const result = await cli.stop('SIGTERM');
      expect(result.code, result.stderr).toBe(0);
    }
  });
});
