// The naive scale-out, on the real NATS JetStream and Redis of this machine: a second instance
// started on the same durable consumer / group without partitions would get part of every run.
// It refuses to start, says why and prints the commands that would work; with
// --allow-shared-consumer it starts anyway.
import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { NATS_URL, publishToNats, publishToRedis, REDIS_URL } from '../helpers/brokers.js';
import { startCli } from '../helpers/cli.js';

interface Deployment {
  args(consumer: string): string[];
  publish(): Promise<void>;
  cleanup(): Promise<void>;
}

function nats(): Deployment {
  const id = randomUUID().slice(0, 8);
  const stream = `AOB_SHARED_${id}`;
  const subject = `shared.${id}.events`;
  return {
    args: () => ['nats', '--url', NATS_URL, '--stream', stream, '--subject', subject],
    publish: () => publishToNats(stream, subject, createDemoLines(2, Date.UTC(2025, 9, 1))),
    async cleanup() {
      const nc = await connect({ servers: NATS_URL });
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
      await nc.drain();
    },
  };
}

function redis(): Deployment {
  const key = `aob:shared:${randomUUID().slice(0, 8)}`;
  return {
    args: (consumer) => ['redis', '--url', REDIS_URL, '--stream', key, '--consumer', consumer],
    publish: () => publishToRedis(key, createDemoLines(2, Date.UTC(2025, 9, 1))),
    async cleanup() {
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      await client.del(key);
      client.destroy();
    },
  };
}

describe.each([
  ['NATS JetStream', nats, 'route nats', '--durable agent-otel-bridge'],
  ['Redis Streams', redis, 'route redis', '--group agent-otel-bridge'],
] as const)('%s, a second consumer on one durable or group', (_name, make, route, shared) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('is refused with the commands that would work, unless --allow-shared-consumer', async () => {
    const deployment = make();
    cleanups.push(() => deployment.cleanup());
    await deployment.publish();
    const env = { OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' };
    const first = startCli(deployment.args('first'), env);
    cleanups.push(() => first.stop('SIGKILL'));
    await first.waitForStderr(/consuming /);
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const second = startCli(deployment.args('second'), env);
    cleanups.push(() => second.stop('SIGKILL'));
    const refused = await second.exited;
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/another consumer is reading this stream now/);
    expect(refused.stderr).toContain(`agent-otel-bridge ${route}`);
    expect(refused.stderr).toContain(`${shared} --partitions 12`);
    expect(refused.stderr).toContain('--allow-shared-consumer');

    const third = startCli([...deployment.args('third'), '--allow-shared-consumer'], env);
    cleanups.push(() => third.stop('SIGKILL'));
    await third.waitForStderr(/consuming /);
    const stopped = await third.stop('SIGTERM');
    expect(stopped.code, stopped.stderr).toBe(0);
    // The first one, alone again later, was never disturbed.
    expect((await first.stop('SIGTERM')).code).toBe(0);
  }, 60_000);
});
