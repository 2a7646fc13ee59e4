// One run streaming 100 000 text deltas beside 1 000 normal runs, on the real NATS JetStream and
// Redis of this machine, with at most 50 000 messages held (half the long run): the normal runs are
// exported while the long run is open (its messages are acknowledged as its checkpoints are saved),
// then the instance is SIGKILLed and a new one rebuilds the long run from its checkpoint and the
// messages delivered since: its trace comes out exactly as from the whole log, counted once.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import {
  NATS_URL,
  natsConsumerInfo,
  publishToNats,
  publishToRedis,
  REDIS_URL,
  redisPending,
} from '../helpers/brokers.js';
import { startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import type { OtlpMetric } from '../helpers/otlp-protobuf.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import {
  divergentDuplicates,
  expectedFingerprints,
  waitFor,
  wireFingerprint,
} from '../helpers/wire-spans.js';

const DELTAS = 100_000;
const NORMAL_RUNS = 1000;
const LONG_RUN = '01930000-0000-4000-8000-00000000beef';
const LONG_MODEL = 'long-stream-model';
/**
 * Half the long run: held whole, it would stop the consumer for good; the normal runs in flight
 * (held for their reorder window, grace and export, about 1 s) stay far below it even on a loaded
 * machine, so a pause here can only come from the long run (20 000 was reached by them under load).
 */
const MAX_ACK_PENDING = DELTAS / 2;
const ENV = {
  OTEL_METRIC_EXPORT_INTERVAL: '400',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  AGENT_OTEL_BRIDGE_REORDER_WINDOW_MS: '200',
  AGENT_OTEL_BRIDGE_LATE_GRACE_MS: '500',
};

/** behest's timestamp `micros` microseconds after 2025-06-03T12:00:00Z. */
function at(micros: number): string {
  const base = Date.UTC(2025, 5, 3, 12);
  const iso = new Date(base + Math.floor(micros / 1000)).toISOString();
  return iso.replace('Z', `${String(micros % 1000).padStart(3, '0')}Z`);
}

const event = (variant: string, micros: number, payload: Record<string, unknown> = {}) =>
  JSON.stringify({ [variant]: { run_id: LONG_RUN, ...payload, timestamp: at(micros) } });

function longRun(): { head: string[]; deltas: string[]; tail: string[] } {
  // A model of its own, to tell its `agent.runs` point from the normal runs'.
  const model = { provider: 'anthropic', model: LONG_MODEL };
  return {
    head: [
      event('RunStarted', 0, { session_id: 'long-session', ...model }),
      event('ModelStarted', 10, { iteration: 1, ...model }),
    ],
    deltas: Array.from({ length: DELTAS }, (_, i) =>
      event('TextDelta', 100 + i * 10, { delta: `token${i} ` }),
    ),
    tail: [
      event('UsageRecorded', 100 + DELTAS * 10, {
        usage: { input_tokens: 5000, output_tokens: DELTAS, total_tokens: 5000 + DELTAS },
      }),
      event('AssistantMessageCommitted', 110 + DELTAS * 10, {}),
      event('RunCompleted', 120 + DELTAS * 10, { finish_reason: 'stop', iterations: 1 }),
    ],
  };
}

/** The long run's head, then its deltas with the normal runs' lines spread among them. */
function interleaved(
  head: readonly string[],
  deltas: readonly string[],
  normal: readonly string[],
) {
  const out = [...head];
  const step = deltas.length / normal.length;
  let n = 0;
  deltas.forEach((delta, i) => {
    out.push(delta);
    while (n < normal.length && n * step <= i) out.push(normal[(n += 1) - 1]!);
  });
  return out.concat(normal.slice(n));
}

interface Broker {
  publish(lines: readonly string[]): Promise<void>;
  instance(): string[];
  /** Messages the consumer holds unacknowledged. */
  pending(): Promise<number>;
  cleanup(): Promise<void>;
}

function nats(): Broker {
  const id = randomUUID().slice(0, 8);
  const stream = `AOB_LONG_${id}`;
  const subject = `long.${id}.events`;
  const durable = `long-${id}`;
  return {
    publish: (lines) => publishToNats(stream, subject, lines, NATS_URL, 512),
    instance: () => [
      'nats',
      '--stream',
      stream,
      '--subject',
      subject,
      '--durable',
      durable,
      '--max-ack-pending',
      String(MAX_ACK_PENDING),
      '--ack-wait-ms',
      '3000',
    ],
    pending: async () => (await natsConsumerInfo(stream, durable)).numAckPending,
    async cleanup() {
      const nc = await connect({ servers: NATS_URL });
      const jsm = await jetstreamManager(nc);
      for (const name of [stream, `KV_${durable}-runs`])
        await jsm.streams.delete(name).catch(() => undefined);
      await nc.drain();
    },
  };
}

function redis(): Broker {
  const key = `aob:long:${randomUUID().slice(0, 8)}`;
  return {
    publish: (lines) => publishToRedis(key, lines, REDIS_URL, 512),
    instance: () => [
      'redis',
      '--stream',
      key,
      '--group',
      'bridge',
      '--consumer',
      'c1',
      '--max-ack-pending',
      String(MAX_ACK_PENDING),
    ],
    pending: () => redisPending(key, 'bridge'),
    async cleanup() {
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      for await (const keys of client.scanIterator({ MATCH: `${key}*`, COUNT: 1000 }))
        if (keys.length > 0) await client.del(keys);
      client.destroy();
    },
  };
}

const countedRuns = (metrics: readonly OtlpMetric[], model?: string) =>
  metrics
    .filter((m) => m.name === 'agent.runs')
    .flatMap((m) => m.points)
    .filter((p) => model === undefined || p.attributes['gen_ai.request.model'] === model)
    .reduce((t, p) => t + (p.value as number), 0);

/** `agent_bridge.checkpoints` of one outcome in an instance's latest export. */
const checkpoints = (metrics: readonly OtlpMetric[], outcome: string) =>
  metrics
    .filter((m) => m.name === 'agent_bridge.checkpoints')
    .flatMap((m) => m.points)
    .filter((p) => p.attributes['agent_bridge.checkpoint.outcome'] === outcome)
    .reduce((t, p) => t + (p.value as number), 0);

const dir = mkdtempSync(join(tmpdir(), 'long-runs-'));
function expectedOf(name: string, lines: readonly string[]): Set<string> {
  const file = join(dir, `${name}.ndjson`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return expectedFingerprints([file]);
}

describe.each([
  ['NATS JetStream', nats],
  ['Redis Streams', redis],
] as const)('%s long runs', (_name, makeBroker) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('exports 1 000 runs beside an open 100 000-delta run, and rebuilds it after a SIGKILL', async () => {
    const broker = makeBroker();
    const receiver = await startOtlpReceiver();
    cleanups.push(
      () => broker.cleanup(),
      () => receiver.close(),
    );
    const { head, deltas, tail } = longRun();
    const normal = createDemoLines(NORMAL_RUNS, Date.UTC(2025, 5, 4, 12));
    const expectedNormal = expectedOf('normal', normal);
    const expectedLong = expectedOf('long', [...head, ...deltas, ...tail]);
    const arrived = (expected: ReadonlySet<string>) => () => {
      const seen = new Set(receiver.spans.map(wireFingerprint));
      return [...expected].every((f) => seen.has(f));
    };
    const start = (instanceId: string) => {
      const cli = startCli(broker.instance(), {
        ...ENV,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${instanceId}`,
      });
      cleanups.push(() => cli.stop('SIGKILL'));
      return cli;
    };
    const explain = (clis: RunningCli[]) => (error: unknown) => {
      console.log(clis.map((c, i) => `--- instance ${i + 1}\n${c.stderr()}`).join('\n'));
      throw error;
    };

    await broker.publish(interleaved(head, deltas, normal));
    const first = start('first');
    await waitFor(arrived(expectedNormal), 120_000, 'every span of the 1 000 runs').catch(
      explain([first]),
    );
    // The long run is open, and holds less than one checkpoint's worth of messages.
    expect(receiver.spans.some((s) => s.attributes['agent.run.id'] === LONG_RUN)).toBe(false);
    await waitFor(async () => (await broker.pending()) < 1000, 30_000, 'acknowledgements').catch(
      explain([first]),
    );
    await waitFor(
      () => countedRuns(receiver.metricsByInstance.get('first') ?? []) === NORMAL_RUNS,
      15_000,
      'agent.runs = 1 000',
    );
    expect(first.stderr()).not.toMatch(/pulling paused/);
    // A checkpoint per 1 000 held messages of the long run, at least.
    const ofFirst = () => receiver.metricsByInstance.get('first') ?? [];
    await waitFor(() => checkpoints(ofFirst(), 'saved') >= 99, 15_000, 'checkpoints saved');
    expect(checkpoints(ofFirst(), 'failed')).toBe(0);

    // SIGKILL, and a new instance rebuilds the long run from its checkpoint.
    await first.stop('SIGKILL');
    const second = start('second');
    await broker.publish(tail);
    await waitFor(arrived(expectedLong), 60_000, 'every span of the long run').catch(
      explain([first, second]),
    );
    expect(new Set(receiver.spans.map(wireFingerprint))).toEqual(
      new Set([...expectedNormal, ...expectedLong]),
    );
    expect(divergentDuplicates(receiver.spans)).toEqual([]);
    // The long run counted once, by the second instance (a normal run the first had not yet
    // acknowledged when it was killed may be counted again: the stated bound for a SIGKILL).
    await waitFor(
      () => countedRuns(receiver.metricsByInstance.get('second') ?? [], LONG_MODEL) === 1,
      15_000,
      'the long run counted once',
    ).catch(explain([first, second]));
    expect(countedRuns(ofFirst(), LONG_MODEL)).toBe(0);
    const ofSecond = () => receiver.metricsByInstance.get('second') ?? [];
    await waitFor(
      () => checkpoints(ofSecond(), 'restored') === 1 && checkpoints(ofSecond(), 'finished') === 1,
      15_000,
      'the long run restored and then finished in its checkpoint',
    );
    await second.stop('SIGTERM');
  }, 300_000);
});

// The same across instances: two instances share 4 partitions of a routed Redis stream; the one
// that checkpoints the long run is SIGKILLed, and the other takes its partitions over and rebuilds
// the long run from the checkpoint of its partition.
describe('Redis Streams partitions, long run', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('rebuilds a checkpointed long run on the instance that takes its partition over', async () => {
    const broker = redis();
    const receiver = await startOtlpReceiver();
    cleanups.push(
      () => broker.cleanup(),
      () => receiver.close(),
    );
    const { head, deltas, tail } = longRun();
    const normal = createDemoLines(300, Date.UTC(2025, 5, 6, 12));
    const expectedNormal = expectedOf('normal-partitioned', normal);
    const expectedLong = expectedOf('long-partitioned', [...head, ...deltas, ...tail]);
    const arrived = (expected: ReadonlySet<string>) => () => {
      const seen = new Set(receiver.spans.map(wireFingerprint));
      return [...expected].every((f) => seen.has(f));
    };
    const key = broker.instance()[2]!;
    const env = { ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    await broker.publish(interleaved(head, deltas, normal));
    const start = (args: string[], instanceId?: string) => {
      const cli = startCli(args, {
        ...env,
        ...(instanceId === undefined
          ? {}
          : { OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${instanceId}` }),
      });
      cleanups.push(() => cli.stop('SIGKILL'));
      return cli;
    };
    start(['route', 'redis', '--stream', key, '--partitions', '4']);
    const instance = (id: string) =>
      start(
        [
          'redis',
          '--stream',
          key,
          '--group',
          'bridge',
          '--partitions',
          '4',
          '--lease-ms',
          '3000',
          '--max-ack-pending',
          '20000',
          '--instance-id',
          id,
        ],
        id,
      );
    const instances = { a: instance('a'), b: instance('b') };
    const stderrs = () =>
      Object.entries(instances)
        .map(([id, c]) => `--- ${id}\n${c.stderr()}`)
        .join('\n');
    const explain = (error: unknown) => {
      console.log(stderrs());
      throw error;
    };
    await waitFor(arrived(expectedNormal), 120_000, 'every span of the 300 runs').catch(explain);
    const saved = (id: string) => checkpoints(receiver.metricsByInstance.get(id) ?? [], 'saved');
    await waitFor(() => saved('a') + saved('b') >= 99, 15_000, 'checkpoints saved').catch(explain);
    // The instance that checkpoints the long run owns its partition: it dies.
    const [victim, survivor] =
      saved('a') > saved('b') ? (['a', 'b'] as const) : (['b', 'a'] as const);
    await instances[victim].stop('SIGKILL');
    await broker.publish(tail);
    await waitFor(arrived(expectedLong), 60_000, 'every span of the long run').catch(explain);
    const divergent = divergentDuplicates(receiver.spans);
    if (divergent.length > 0)
      console.log(
        receiver.spans
          .filter((x) => divergent.slice(0, 3).includes(x.spanId))
          .map((x) => wireFingerprint(x))
          .join('\n'),
        stderrs(),
      );
    expect(divergent).toEqual([]);
    expect(new Set(receiver.spans.map(wireFingerprint))).toEqual(
      new Set([...expectedNormal, ...expectedLong]),
    );
    const ofSurvivor = () => receiver.metricsByInstance.get(survivor) ?? [];
    await waitFor(
      () =>
        checkpoints(ofSurvivor(), 'restored') >= 1 && countedRuns(ofSurvivor(), LONG_MODEL) === 1,
      15_000,
      'the long run restored and counted by the survivor',
    ).catch(explain);
    expect(countedRuns(receiver.metricsByInstance.get(victim) ?? [], LONG_MODEL)).toBe(0);
  }, 300_000);
});
