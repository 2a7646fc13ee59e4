// The nats and redis commands against the real NATS JetStream and Redis on this machine, with the
// bridge as a child process exporting to a real OTLP/HTTP receiver.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { createHarness } from '../helpers/harness.js';
import type { RunningCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpMetric } from '../helpers/otlp-protobuf.js';
import { publishedAsBehestDoes } from '../helpers/behest-delivery.js';
import { natsTestBroker, redisTestBroker } from '../helpers/test-brokers.js';
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

const natsBroker = () => natsTestBroker('AOB_TEST', ['--ack-wait-ms', String(ACK_WAIT_MS)]);
const redisBroker = () => redisTestBroker('aob:test', ['--consumer', 'bridge-1']);

/** Stated bound for the bridge's resident memory during an outage with this workload. */
const MEMORY_BOUND_MIB = 400;

function residentMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

const ENV = { OTEL_METRIC_EXPORT_INTERVAL: '400', OTEL_BSP_SCHEDULE_DELAY: '100' };

/** Runs by outcome that the given lines hold, mapped in process. */
function runsByOutcome(input: readonly string[]) {
  const h = createHarness();
  h.feed(input.join('\n'));
  const { completed, failed, cancelled } = h.sink.stats().runs;
  return { completed, failed, cancelled };
}

/** `agent.runs` by outcome in one instance's latest metric export. */
function countedRuns(metrics: readonly OtlpMetric[]) {
  const byOutcome = (outcome: string) =>
    metrics
      .filter((m) => m.name === 'agent.runs')
      .flatMap((m) => m.points)
      .filter((p) => p.attributes['agent.run.outcome'] === outcome)
      .reduce((t, p) => t + (p.value as number), 0);
  return {
    completed: byOutcome('completed'),
    failed: byOutcome('failed'),
    cancelled: byOutcome('cancelled'),
  };
}

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
    const finishedLines = lines(FINISHED).length;
    expect(stopped.stdout).toContain(
      `acknowledged ${finishedLines} messages, held ${abandonedLines} unacknowledged for redelivery`,
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

  it('gives the in-order traces when the publisher displaces, delays and duplicates events', async () => {
    const broker = makeBroker();
    const receiver = await startOtlpReceiver();
    cleanups.push(
      () => broker.cleanup(),
      () => receiver.close(),
    );
    const published = publishedAsBehestDoes(lines(FINISHED), 8, 0x5eed);
    expect(published.length).toBeGreaterThan(lines(FINISHED).length);
    await broker.publish(published);
    const expected = expectedFingerprints(FINISHED);
    // The defaults: a 1 s reorder window and a 5 s grace period.
    const cli = startCli(broker.args(), {
      ...ENV,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      AGENT_OTEL_BRIDGE_REORDER_WINDOW_MS: '1000',
      AGENT_OTEL_BRIDGE_LATE_GRACE_MS: '5000',
    });
    cleanups.push(() => cli.stop('SIGKILL'));
    await waitFor(
      () => [...expected].every((f) => receiver.spans.some((s) => wireFingerprint(s) === f)),
      30_000,
      'every in-order span at the receiver',
    );
    await waitFor(async () => (await broker.pending()) === 0, 15_000, 'every message acknowledged');
    const result = await cli.stop('SIGTERM');
    expect(result.code).toBe(0);
    // Nothing else: no synthesized root, no span cut short, no span id with two contents.
    expect(new Set(receiver.spans.map(wireFingerprint))).toEqual(expected);
    expect(divergentDuplicates(receiver.spans)).toEqual([]);
    expect(result.stdout).toMatch(/late 0\b/);
  });

  // Its waits: start-up 10 s, two kills 20 s each, every span 30 s, acknowledged 15 s.
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
      const started = (victim = startCli(broker.args(), env));
      // Said, within the test's limit, if the instance never makes the export it is killed on.
      const killed = await Promise.race([
        started.exited,
        new Promise<never>((_, reject) =>
          setTimeout(() => {
            void started.stop('SIGKILL');
            reject(
              new Error(
                `the instance to be killed at its first ${point} export made none in 20 s; stderr:\n${started.stderr()}`,
              ),
            );
          }, 20_000),
        ),
      ]);
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

    // Each run is counted once by the instance that acknowledged it; an instance killed after a
    // metric export reached the collector but before it could acknowledge counted its runs too
    // (the stated bound: once more per such instance), and no instance counts a run twice.
    const exact = runsByOutcome(lines(FINISHED));
    const counted = [...receiver.metricsByInstance.values()].map(countedRuns);
    expect(counted).toContainEqual(exact);
    for (const c of counted) {
      expect(c.completed).toBeLessThanOrEqual(exact.completed);
      expect(c.failed).toBeLessThanOrEqual(exact.failed);
      expect(c.cancelled).toBeLessThanOrEqual(exact.cancelled);
    }
  }, 120_000);
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
      // Runs rebuilt from redelivered messages after failed exports are not counted again.
      expect([...receiver.metricsByInstance.values()].map(countedRuns)).toEqual([
        runsByOutcome(lines(FINISHED)),
      ]);
    } finally {
      await cli.stop('SIGKILL');
      await receiver.close();
      await broker.cleanup();
    }
  }, 150_000);
});
