// Partitions across instances, on the real NATS JetStream and Redis of this machine: two routers
// republish the runtime's single stream by partition, three bridge instances share the
// partitions through leases held in the broker. Every run comes out as one complete trace, no span
// id with two contents, `agent.runs` equal to the runs; then an owner is SIGKILLed mid-stream and
// a fourth instance joins: the same, with the takeover within lease time + ack wait.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { publishedAsBehestDoes } from '../helpers/behest-delivery.js';
import { NATS_URL, publishToNats, publishToRedis, REDIS_URL } from '../helpers/brokers.js';
import { startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import { createHarness } from '../helpers/harness.js';
import { countedRuns, startOtlpReceiver, totalCounted } from '../helpers/otlp-receiver.js';
import {
  divergentDuplicates,
  expectedFingerprints,
  waitFor,
  wireFingerprint,
} from '../helpers/wire-spans.js';

const PARTITIONS = 6;
const LEASE_MS = 1500;
const ACK_WAIT_MS = 1500;
// The default reorder window and grace period: two routers republish a run's events in batches
// side by side, displacing them by up to a batch.
const ENV = {
  OTEL_METRIC_EXPORT_INTERVAL: '400',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  AGENT_OTEL_BRIDGE_REORDER_WINDOW_MS: '1000',
  AGENT_OTEL_BRIDGE_LATE_GRACE_MS: '5000',
};

interface Topology {
  publish(lines: readonly string[]): Promise<void>;
  router(n: number): string[];
  instance(n: number): string[];
  cleanup(): Promise<void>;
}

function natsTopology(): Topology {
  const id = randomUUID().slice(0, 8);
  const stream = `AOB_PART_${id}`;
  const partitionStream = `AOB_PARTS_${id}`;
  const subject = `parts.${id}.events`;
  const durable = `bridge-${id}`;
  let created = false;
  return {
    async publish(lines) {
      if (!created) {
        created = true;
        const nc = await connect({ servers: NATS_URL });
        await (
          await jetstreamManager(nc)
        ).streams.add({ name: partitionStream, subjects: [`${subject}.*`] });
        await nc.drain();
      }
      await publishToNats(stream, subject, lines).catch(async () => {
        // The stream exists from the first phase: publish without creating it.
        const nc = await connect({ servers: NATS_URL });
        const { jetstream } = await import('@nats-io/jetstream');
        const js = jetstream(nc);
        for (const line of lines) await js.publish(subject, line);
        await nc.drain();
      });
    },
    router: (n) => [
      'route',
      'nats',
      '--url',
      NATS_URL,
      '--stream',
      stream,
      '--subject',
      subject,
      '--partitions',
      String(PARTITIONS),
      '--durable',
      `router-${id}`,
      '--ack-wait-ms',
      String(ACK_WAIT_MS),
      '--consumer',
      `router-${n}`,
    ],
    instance: (n) => [
      'nats',
      '--url',
      NATS_URL,
      '--stream',
      stream,
      '--subject',
      subject,
      '--partition-stream',
      partitionStream,
      '--durable',
      durable,
      '--ack-wait-ms',
      String(ACK_WAIT_MS),
      '--partitions',
      String(PARTITIONS),
      '--lease-ms',
      String(LEASE_MS),
      '--instance-id',
      `instance-${n}`,
    ],
    async cleanup() {
      const nc = await connect({ servers: NATS_URL });
      const jsm = await jetstreamManager(nc);
      for (const name of [stream, partitionStream, `KV_${durable}-leases`])
        await jsm.streams.delete(name).catch(() => undefined);
      await nc.drain();
    },
  };
}

function redisTopology(): Topology {
  const key = `aob:parts:${randomUUID().slice(0, 8)}`;
  return {
    publish: (lines) => publishToRedis(key, lines),
    router: (n) => [
      'route',
      'redis',
      '--url',
      REDIS_URL,
      '--stream',
      key,
      '--partitions',
      String(PARTITIONS),
      '--consumer',
      `router-${n}`,
      '--claim-idle-ms',
      String(ACK_WAIT_MS),
    ],
    instance: (n) => [
      'redis',
      '--url',
      REDIS_URL,
      '--stream',
      key,
      '--group',
      'bridge',
      '--partitions',
      String(PARTITIONS),
      '--lease-ms',
      String(LEASE_MS),
      '--instance-id',
      `instance-${n}`,
    ],
    async cleanup() {
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      for await (const keys of client.scanIterator({ MATCH: `${key}*`, COUNT: 1000 }))
        if (keys.length > 0) await client.del(keys);
      client.destroy();
    },
  };
}

function runsIn(lines: readonly string[]): number {
  const h = createHarness();
  h.feed(lines.join('\n'));
  const { completed, failed, cancelled } = h.sink.stats().runs;
  return completed + failed + cancelled;
}

const dir = mkdtempSync(join(tmpdir(), 'partitions-'));

function expectedOf(name: string, lines: readonly string[]): Set<string> {
  const file = join(dir, `${name}.ndjson`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return expectedFingerprints([file]);
}

const owns = (cli: RunningCli) => (cli.stderr().match(/owns partition/g) ?? []).length;

describe.each([
  ['NATS JetStream', natsTopology],
  ['Redis Streams', redisTopology],
] as const)('%s partitions', (_name, makeTopology) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('gives every run one correct trace across routers and instances, through a SIGKILL and a new instance', async () => {
    const topology = makeTopology();
    const receiver = await startOtlpReceiver();
    cleanups.push(
      () => topology.cleanup(),
      () => receiver.close(),
    );
    const env = { ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const first = createDemoLines(300, Date.UTC(2025, 5, 1, 12));
    const second = createDemoLines(200, Date.UTC(2025, 5, 2, 12));
    const expectedFirst = expectedOf('first', first);
    const expectedSecond = expectedOf('second', second);
    const arrived = (expected: ReadonlySet<string>) => () => {
      const seen = new Set(receiver.spans.map(wireFingerprint));
      return [...expected].every((f) => seen.has(f));
    };

    await topology.publish(publishedAsBehestDoes(first, 8, 0x5eed));
    const processes: RunningCli[] = [];
    const start = (args: string[], instanceId?: string) => {
      const cli = startCli(args, {
        ...env,
        ...(instanceId === undefined
          ? {}
          : { OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${instanceId}` }),
      });
      processes.push(cli);
      cleanups.push(() => cli.stop('SIGKILL'));
      return cli;
    };
    start(topology.router(1));
    start(topology.router(2));
    const instances = [1, 2, 3].map((n) => start(topology.instance(n), `instance-${n}`));
    // On a failure, what each process said is the first thing to read.
    const explain = async (wait: Promise<void>) =>
      wait.catch((error: unknown) => {
        const missing = [...expectedFirst, ...expectedSecond].filter(
          (f) => !receiver.spans.some((x) => wireFingerprint(x) === f),
        );
        console.log(
          [`missing ${missing.length} spans, e.g. ${missing.slice(0, 3).join('\n')}`]
            .concat(processes.map((p, i) => `--- process ${i}\n${p.stderr()}`))
            .join('\n'),
        );
        throw error;
      });
    await explain(waitFor(arrived(expectedFirst), 90_000, 'every span of the first 300 runs'));
    // Every run counted once over all instances, handovers included.
    const firstRuns = runsIn(first);
    await waitFor(() => totalCounted(receiver) === firstRuns, 15_000, 'agent.runs = runs');
    expect(instances.filter((i) => owns(i) > 0).length).toBeGreaterThan(1);

    // Mid-stream: SIGKILL an owner, and a fourth instance joins.
    await topology.publish(publishedAsBehestDoes(second, 8, 0xbeef));
    await waitFor(() => receiver.spans.length > expectedFirst.size + 50, 30_000, 'progress');
    const victimIndex = instances.findIndex((i) => owns(i) > 0);
    const victim = instances[victimIndex]!;
    const survivors = instances.filter((i) => i !== victim);
    const ownedBefore = survivors.map(owns);
    const killedAt = Date.now();
    await victim.stop('SIGKILL');
    survivors.push(start(topology.instance(4), 'instance-4'));
    ownedBefore.push(0);
    await waitFor(
      () => survivors.some((s, i) => owns(s) > ownedBefore[i]!),
      LEASE_MS * 3 + 5000,
      'a takeover',
    );
    const takeoverMillis = Date.now() - killedAt;
    await explain(waitFor(arrived(expectedSecond), 90_000, 'every span of the next 200 runs'));
    console.log(`takeover after ${takeoverMillis} ms (lease ${LEASE_MS} ms)`);
    expect(takeoverMillis).toBeLessThan(LEASE_MS * 2 + 2000);

    // Nothing else, no span id with two contents.
    expect(new Set(receiver.spans.map(wireFingerprint))).toEqual(
      new Set([...expectedFirst, ...expectedSecond]),
    );
    expect(divergentDuplicates(receiver.spans)).toEqual([]);
    // Every run counted; a run the killed instance counted but could not acknowledge is counted
    // again by its next owner (the stated bound: at most what the killed instance counted).
    const allRuns = firstRuns + runsIn(second);
    await waitFor(() => totalCounted(receiver) >= allRuns, 15_000, 'every run counted');
    const countedByVictim = countedRuns(
      receiver.metricsByInstance.get(`instance-${victimIndex + 1}`) ?? [],
    );
    expect(totalCounted(receiver) - allRuns).toBeLessThanOrEqual(countedByVictim);
    // The survivors say, in their own metrics, that they hold every partition between them.
    const ownedBy = (id: string) =>
      (receiver.metricsByInstance.get(id) ?? [])
        .filter((m) => m.name === 'agent_bridge.partitions.owned')
        .flatMap((m) => m.points)
        .reduce((t, p) => t + (p.value as number), 0);
    const survivorIds = [1, 2, 3, 4]
      .filter((n) => n !== victimIndex + 1)
      .map((n) => `instance-${n}`);
    await waitFor(
      () => survivorIds.reduce((t, id) => t + ownedBy(id), 0) === PARTITIONS,
      15_000,
      'every partition owned by a survivor',
    ).catch((error: unknown) => {
      console.log(
        survivorIds.map((id) => `${id}: ${ownedBy(id)}`).join(', '),
        [...receiver.metricsByInstance.keys()],
        (receiver.metricsByInstance.get(survivorIds[0]!) ?? []).map((m) => m.name),
      );
      throw error;
    });
    for (const cli of processes) if (cli !== victim) await cli.stop('SIGTERM');
  }, 240_000);
});
