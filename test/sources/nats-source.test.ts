// The NATS JetStream source on the real server of this machine: a message redelivered to the
// process that still holds its first delivery (its ack wait ran out while the process stalled,
// or a former owner gave it back) is one message at the server. The copy is a duplicate for the
// bridge and is skipped (settled here only); the first delivery, settled when its run is durable,
// acknowledges it. Found by the chaos test (seed 7616): the copy was acknowledged, which
// acknowledged the message; the partition then moved before the run was exported, and the run
// was never exported anywhere. A copy that did its own work (a router published it again) is
// acknowledged as any delivery is.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { BrokerSource } from '../../src/sources/broker-source.js';
import type { Delivery } from '../../src/sources/delivery.js';
import { createNatsSource } from '../../src/sources/nats-source.js';
import { deleteNatsStream, NATS_URL, natsConsumerInfo, publishToNats } from '../helpers/brokers.js';
import { waitFor } from '../helpers/wire-spans.js';

const ACK_WAIT_MILLIS = 1000;

interface Reading {
  readonly source: BrokerSource;
  readonly deliveries: { readonly text: string; readonly delivery: Delivery }[];
  /** Stops reading, then closes: every acknowledgement sent has reached the server. */
  close(): Promise<void>;
}

describe('NATS JetStream source: a message delivered twice to one holder', () => {
  const streams: string[] = [];
  const readings: Reading[] = [];
  afterEach(async () => {
    for (const reading of readings.splice(0)) await reading.close().catch(() => undefined);
    for (const stream of streams.splice(0)) await deleteNatsStream(stream);
  });

  async function setUp(lines: readonly string[]) {
    const id = randomUUID().slice(0, 8);
    const stream = `AOB_SRC_${id}`;
    const subject = `src.${id}`;
    streams.push(stream);
    await publishToNats(stream, subject, lines);
    const read = async (): Promise<Reading> => {
      const source = createNatsSource({
        url: NATS_URL,
        stream,
        subject,
        durable: `bridge-${id}`,
        ackWaitMillis: ACK_WAIT_MILLIS,
        maxAckPending: 100,
        batchSize: 10,
      });
      await source.open();
      const deliveries: Reading['deliveries'][number][] = [];
      // Nothing is settled or kept alive by the reader itself: the ack wait runs out.
      const running = source.run(
        (text, delivery) => deliveries.push({ text, delivery }),
        () => true,
      );
      const reading = {
        source,
        deliveries,
        async close() {
          source.stop();
          await running;
          await source.close();
        },
      };
      readings.push(reading);
      return reading;
    };
    return { read, info: () => natsConsumerInfo(stream, `bridge-${id}`) };
  }

  it('a copy skipped while the first delivery is held leaves the message pending, for the next owner', async () => {
    const { read, info } = await setUp(['{"n":1}']);
    const first = await read();
    // The first delivery, then its copy after the ack wait.
    await waitFor(() => first.deliveries.length >= 2, 10_000, 'the message redelivered');
    const [original, copy] = first.deliveries;
    expect(copy!.delivery.sequence).toBe(original!.delivery.sequence);
    copy!.delivery.skip!();
    // The holder dies before the first delivery's run is durable.
    await first.close();
    readings.splice(readings.indexOf(first), 1);
    expect((await info()).numAckPending).toBe(1);
    // The next owner gets it back.
    const next = await read();
    await waitFor(() => next.deliveries.length >= 1, 10_000, 'the message at the next owner');
    expect(next.deliveries[0]!.text).toBe('{"n":1}');
  });

  it('the first delivery acknowledges it, whether or not a copy was settled before', async () => {
    const { read, info } = await setUp(['{"n":1}', '{"n":2}']);
    const reading = await read();
    await waitFor(() => reading.deliveries.length >= 4, 10_000, 'both messages redelivered');
    const bySequence = (seq: number) =>
      reading.deliveries.filter((d) => d.delivery.sequence === seq).map((d) => d.delivery);
    // Message 1: the copy is skipped first, then the first delivery acknowledged. Message 2: the
    // other way round.
    const [one, oneCopy] = bySequence(1);
    const [two, twoCopy] = bySequence(2);
    oneCopy!.skip!();
    one!.ack();
    two!.ack();
    twoCopy!.skip!();
    await reading.close();
    readings.splice(readings.indexOf(reading), 1);
    expect(await info()).toMatchObject({ numAckPending: 0, ackFloor: 2 });
  });

  it('a copy acknowledged acknowledges the message, its first delivery left unsettled (a router published it again)', async () => {
    const { read, info } = await setUp(['{"n":1}']);
    const reading = await read();
    await waitFor(() => reading.deliveries.length >= 2, 10_000, 'the message redelivered');
    reading.deliveries[1]!.delivery.ack();
    await reading.close();
    readings.splice(readings.indexOf(reading), 1);
    expect(await info()).toMatchObject({ numAckPending: 0, ackFloor: 1 });
  });
});

// A router lets its source pull again once every copy of the batch in hand is stored; waiting out
// the source's pause for that took a batch 50 ms or more, and routing NATS partitions ran at a
// third of its earlier rate (docs/performance.md, "Routing NATS partitions, measured again").
describe('NATS JetStream source: woken where its puller said not yet', () => {
  const streams: string[] = [];
  afterEach(async () => {
    for (const stream of streams.splice(0)) await deleteNatsStream(stream);
  });

  it('asks again at once when woken, not after its pause', async () => {
    const id = randomUUID().slice(0, 8);
    const stream = `AOB_WAKE_${id}`;
    const subject = `wake.${id}`;
    streams.push(stream);
    await publishToNats(stream, subject, ['{"a":1}']);
    const source = createNatsSource({
      url: NATS_URL,
      stream,
      subject,
      durable: `wake-${id}`,
      ackWaitMillis: 30_000,
      maxAckPending: 100,
      batchSize: 10,
    });
    await source.open();
    let asked = 0;
    let may = false;
    const texts: string[] = [];
    const running = source.run(
      (text, delivery) => {
        texts.push(text);
        delivery.ack();
      },
      () => {
        asked += 1;
        return may;
      },
    );
    try {
      await waitFor(() => asked >= 2, 10_000, 'the source to ask twice');
      may = true;
      const before = asked;
      source.wake!();
      // A timer of the pause's length cannot have run out within one turn of the event loop
      // unless the loop itself was held that long; then the answer is the same either way.
      await new Promise((resolve) => setImmediate(resolve));
      expect(asked).toBe(before + 1);
      await waitFor(() => texts.length === 1, 10_000, 'the message');
      expect(texts).toEqual(['{"a":1}']);
    } finally {
      source.stop();
      await running;
      await source.close();
    }
  });
});
