// A NATS router whose copies the partition stream does not store (no stream takes the partition
// subjects yet: every publish is refused), on the real NATS JetStream of this machine. Its term
// ends at the first refused copy, says why, publishes nothing after it and acknowledges nothing;
// once a stream takes the partition subjects, the next term routes every event once, each run's
// events in the source's order, and the source is acknowledged.
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterEach, expect, it } from 'vitest';
import { createNatsRouter } from '../../src/partitions/nats-router.js';
import { partitionOf } from '../../src/partitions/partition-of.js';
import { NATS_URL, natsConsumerInfo } from '../helpers/brokers.js';
import { waitFor } from '../helpers/wire-spans.js';

const PARTITIONS = 3;
const RUNS = ['run-a', 'run-b', 'run-c', 'run-d'];

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

it('ends its term at a copy the partition stream did not store, and routes everything in order once it can', async () => {
  const id = randomUUID().slice(0, 8);
  const stream = `AOB_STOREFAIL_${id}`;
  const parts = `AOB_STOREFAIL_PARTS_${id}`;
  const subject = `storefail.${id}`;
  const nc = await connect({ servers: NATS_URL });
  const jsm = await jetstreamManager(nc);
  cleanups.push(async () => {
    for (const name of [stream, parts]) await jsm.streams.delete(name).catch(() => undefined);
    await nc.drain();
  });
  await jsm.streams.add({ name: stream, subjects: [subject] });
  const lines = Array.from({ length: 8 }, (_, k) =>
    RUNS.map((run) => JSON.stringify({ TextDelta: { run_id: run, delta: `${k}` } })),
  ).flat();
  const js = jetstream(nc);
  for (const line of lines) await js.publish(subject, line);

  const reports: string[] = [];
  const router = createNatsRouter({
    url: NATS_URL,
    stream,
    source: subject,
    partitions: PARTITIONS,
    group: 'routers',
    consumer: 'router-1',
    ackWaitMillis: 1000,
    leaseMillis: 1000,
    batchSize: 8,
    report: (message) => reports.push(message),
  });
  const running = router.run();
  cleanups.push(async () => {
    router.stop();
    await running;
  });
  await waitFor(
    () => reports.some((m) => /^stopped routing \(epoch \d+\): routing failed: /.test(m)),
    15_000,
    'the term ended by a refused copy',
  );
  expect(router.routed).toBe(0);
  expect((await natsConsumerInfo(stream, 'routers')).ackFloor).toBe(0);

  await jsm.streams.add({ name: parts, subjects: [`${subject}.*`] });
  await waitFor(() => router.routed >= lines.length, 30_000, 'every event routed');
  await waitFor(
    async () => {
      const info = await natsConsumerInfo(stream, 'routers');
      return info.numAckPending === 0 && info.ackFloor === lines.length;
    },
    15_000,
    'the source acknowledged',
  );
  const stored = (await jsm.streams.info(parts)).state.last_seq;
  const got = new Map<number, string[]>();
  for (let seq = 1; seq <= stored; seq += 1) {
    const m = await jsm.streams.getMessage(parts, { seq });
    if (m === null) continue;
    const p = Number(m.subject.split('.').at(-1));
    got.set(p, [...(got.get(p) ?? []), m.string()]);
  }
  // Each event once, on its run's partition, each run's events in the source's order.
  for (let p = 0; p < PARTITIONS; p += 1)
    expect(got.get(p) ?? [], `partition ${p}`).toEqual(
      lines.filter((line) => partitionOf(/"run_id":"([^"]+)"/.exec(line)![1]!, PARTITIONS) === p),
    );
}, 60_000);
