// The nats and redis commands against the real NATS JetStream and Redis on this machine, with the
// bridge as a child process exporting to a real OTLP/HTTP receiver.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  deleteNatsStream,
  deleteRedisKey,
  natsConsumerInfo,
  NATS_URL,
  publishToNats,
  publishToRedis,
  REDIS_URL,
  redisPending,
} from '../helpers/brokers.js';
import { startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';
import { expectedFingerprints, waitFor, wireFingerprint } from '../helpers/wire-spans.js';

const fixture = (name: string) =>
  fileURLToPath(new URL(`../fixtures/behest/${name}.ndjson`, import.meta.url));
const lines = (files: readonly string[]) =>
  files.flatMap((f) => readFileSync(f, 'utf8').trim().split('\n'));
const FINISHED = [
  'tools-success-failure',
  'doom-loop',
  'breaker',
  'cancelled-mid-tool',
  'unknown-finish-reason',
  'concurrent',
].map(fixture);
const ABANDONED = fixture('abandoned');
const ACK_WAIT_MS = 1500;

interface Broker {
  readonly name: 'nats' | 'redis';
  publish(lines: readonly string[]): Promise<void>;
  pending(): Promise<number>;
  args(): string[];
  cleanup(): Promise<void>;
}

function natsBroker(): Broker {
  const id = randomUUID().slice(0, 8);
  const stream = `AOB_TEST_${id}`;
  const subject = `agents.${id}.events`;
  return {
    name: 'nats',
    publish: (l) => publishToNats(stream, subject, l),
    pending: async () => (await natsConsumerInfo(stream, 'bridge')).numAckPending,
    args: () => [
      'nats',
      '--url',
      NATS_URL,
      '--stream',
      stream,
      '--subject',
      subject,
      '--durable',
      'bridge',
      '--ack-wait-ms',
      String(ACK_WAIT_MS),
    ],
    cleanup: () => deleteNatsStream(stream),
  };
}

function redisBroker(): Broker {
  const key = `aob:test:${randomUUID().slice(0, 8)}`;
  return {
    name: 'redis',
    publish: (l) => publishToRedis(key, l),
    pending: () => redisPending(key, 'bridge'),
    args: () => [
      'redis',
      '--url',
      REDIS_URL,
      '--stream',
      key,
      '--group',
      'bridge',
      '--consumer',
      'bridge-1',
    ],
    cleanup: () => deleteRedisKey(key),
  };
}

/** Stated bound for the bridge's resident memory during an outage with this workload. */
const MEMORY_BOUND_MIB = 400;

function residentMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

const ENV = { OTEL_METRIC_EXPORT_INTERVAL: '400', OTEL_BSP_SCHEDULE_DELAY: '100' };

function uniqueSpans(receiver: OtlpReceiver): Map<string, string[]> {
  const bySpan = new Map<string, string[]>();
  for (const span of receiver.spans)
    bySpan.set(span.spanId, [...(bySpan.get(span.spanId) ?? []), wireFingerprint(span)]);
  return bySpan;
}

describe.each([
  ['NATS JetStream', natsBroker],
  ['Redis Streams', redisBroker],
] as const)('%s', (_name, makeBroker) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('delivers every run as a complete trace and acknowledges only what is durable', async () => {
    const broker = makeBroker();
    const receiver = await startOtlpReceiver();
    cleanups.push(
      () => broker.cleanup(),
      () => receiver.close(),
    );
    await broker.publish([...lines(FINISHED), ...lines([ABANDONED])]);
    const expected = expectedFingerprints(FINISHED);
    const env = { ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };

    const first = startCli(broker.args(), env);
    cleanups.push(() => first.stop('SIGKILL'));
    await waitFor(
      () => [...expected].every((f) => receiver.spans.some((s) => wireFingerprint(s) === f)),
      20_000,
      'every finished run at the receiver',
    );
    const abandonedLines = lines([ABANDONED]).length;
    await waitFor(
      async () => (await broker.pending()) === abandonedLines,
      10_000,
      `only the open run's ${abandonedLines} messages pending`,
    );
    const stopped = await first.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(
      `held    ${abandonedLines} messages unacknowledged for redelivery`,
    );
    expect(
      receiver.spans.some(
        (s) => s.attributes['agent.run.id'] === '5b0c1a2e-6666-4a6b-8c7d-000000000006',
      ),
    ).toBe(false);

    // The next instance rebuilds the open run from the redelivered messages and, told to, ends it.
    const second = startCli([...broker.args(), '--end-open-runs-on-shutdown'], env);
    cleanups.push(() => second.stop('SIGKILL'));
    await second.waitForStderr(/consuming /);
    await new Promise((r) => setTimeout(r, broker.name === 'nats' ? ACK_WAIT_MS + 1500 : 500));
    const ended = await second.stop('SIGTERM');
    expect(ended.code).toBe(0);
    const run = receiver.spans.find(
      (s) => s.attributes['agent.run.id'] === '5b0c1a2e-6666-4a6b-8c7d-000000000006',
    );
    expect(run?.attributes).toMatchObject({
      'agent.run.outcome': 'abandoned',
      'gen_ai.provider.name': 'openai',
    });
    expect(run?.attributes['agent.run.synthesized']).toBeUndefined();
    expect(await broker.pending()).toBe(0);
  });

  it('loses nothing when killed between export and acknowledgement, and duplicates are identical', async () => {
    const broker = makeBroker();
    let victim: RunningCli | undefined;
    let killOn: string | undefined;
    const receiver = await startOtlpReceiver({
      onRequest(path) {
        // Kill the bridge while its export is in flight: the receiver has the data, the bridge never
        // hears back, so it never acknowledges.
        if (path === killOn && victim !== undefined) {
          void victim.stop('SIGKILL');
          victim = undefined;
        }
      },
    });
    cleanups.push(
      () => broker.cleanup(),
      () => receiver.close(),
    );
    await broker.publish(lines(FINISHED));
    const expected = expectedFingerprints(FINISHED);
    const env = { ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };

    // Killed before it exported anything, then while its first spans and its first metrics were in flight.
    const early = startCli(broker.args(), env);
    await early.waitForStderr(/consuming /);
    await new Promise((r) => setTimeout(r, 50));
    expect((await early.stop('SIGKILL')).code).toBeNull();
    for (const point of ['/v1/traces', '/v1/metrics']) {
      killOn = point;
      victim = startCli(broker.args(), env);
      const killed = await victim.exited;
      expect(killed.code).toBeNull();
    }
    killOn = undefined;
    const last = startCli(broker.args(), env);
    cleanups.push(() => last.stop('SIGKILL'));
    await waitFor(
      () => [...expected].every((f) => receiver.spans.some((s) => wireFingerprint(s) === f)),
      30_000,
      'every span at the receiver',
    );
    await waitFor(async () => (await broker.pending()) === 0, 15_000, 'every message acknowledged');
    const final = await last.stop('SIGTERM');
    expect(final.code).toBe(0);

    const spans = uniqueSpans(receiver);
    for (const copies of spans.values()) expect(new Set(copies).size).toBe(1);
    expect(new Set([...spans.values()].map((c) => c[0]!))).toEqual(expected);
    expect([...spans.values()].some((c) => c.length > 1)).toBe(true);

    const runsByOutcome = (outcome: string) =>
      [...receiver.metricsByInstance.values()].reduce(
        (total, metrics) =>
          total +
          metrics
            .filter((m) => m.name === 'agent.runs')
            .flatMap((m) => m.points)
            .filter((p) => p.attributes['agent.run.outcome'] === outcome)
            .reduce((t, p) => t + (p.value as number), 0),
        0,
      );
    expect(receiver.metricsByInstance.size).toBeGreaterThanOrEqual(2);
    expect(runsByOutcome('completed')).toBeGreaterThanOrEqual(26);
    expect(runsByOutcome('failed')).toBeGreaterThanOrEqual(18);
    expect(runsByOutcome('cancelled')).toBeGreaterThanOrEqual(9);
  });
});

describe('collector outage', () => {
  it('holds acknowledgements through 503, 429, refused connections and slow answers, reports it once, stays in memory bounds and loses nothing', async () => {
    const broker = redisBroker();
    const receiver = await startOtlpReceiver();
    receiver.refusing = { status: 503 };
    await broker.publish(lines(FINISHED));
    const expected = expectedFingerprints(FINISHED);
    const cli = startCli(broker.args(), {
      ...ENV,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
    });
    try {
      await cli.waitForStderr(/export outage: /, 30_000);
      expect(await broker.pending()).toBeGreaterThan(0);
      receiver.refusing = { status: 429, retryAfterSeconds: 1 };
      await new Promise((r) => setTimeout(r, 1500));
      await receiver.stopListening(); // connection refused
      await new Promise((r) => setTimeout(r, 2000));
      expect(residentMiB(cli.pid)).toBeLessThan(MEMORY_BOUND_MIB);
      await receiver.listenAgain();
      receiver.refusing = undefined;
      receiver.delayMillis = 300; // slow, but answering
      await cli.waitForStderr(/export recovered/, 30_000);
      await waitFor(
        () => [...expected].every((f) => receiver.spans.some((s) => wireFingerprint(s) === f)),
        60_000,
        'every span after the outage',
      );
      await waitFor(
        async () => (await broker.pending()) === 0,
        20_000,
        'every message acknowledged',
      );
      const result = await cli.stop('SIGTERM');
      expect(result.code).toBe(0);
      expect(result.stderr.match(/export outage/g)).toHaveLength(1);
      expect(receiver.refused).toBeGreaterThan(0);
      for (const copies of uniqueSpans(receiver).values()) expect(new Set(copies).size).toBe(1);
    } finally {
      await cli.stop('SIGKILL');
      await receiver.close();
      await broker.cleanup();
    }
  }, 150_000);
});
