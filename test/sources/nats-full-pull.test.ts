// A stream fed faster than a pull's size a second fills every pull: were only a pull with room
// left taken as a read to the end, a router under such a load would never mark a drain, and its
// instances would apply nothing by time while the load lasts. A full pull whose last message left
// nothing pending has read to the end too. Real NATS JetStream: backlogs of a whole number of
// pulls (generated sizes), read by a source whose pulls all come back full; the read that takes
// the last message says it read to the end, not that it is behind. That the time it names is true
// is held by test/partitions/read-to-end.test.ts.
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNatsSource } from '../../src/sources/nats-source.js';
import { deleteNatsStream, NATS_URL } from '../helpers/brokers.js';

describe('a full NATS pull that left nothing pending', () => {
  it('says the stream was read to its end as its last message is handed over', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 6 }),
        async (batch, pulls) => {
          const id = randomUUID().slice(0, 8);
          const stream = `AOB_FULL_${id}`;
          const subject = `full.${id}`;
          const nc = await connect({ servers: NATS_URL });
          const said: string[] = [];
          try {
            await (await jetstreamManager(nc)).streams.add({ name: stream, subjects: [subject] });
            const js = jetstream(nc);
            for (let i = 0; i < batch * pulls; i += 1) await js.publish(subject, `m${i}`);
            const source = createNatsSource({
              url: NATS_URL,
              stream,
              subject,
              durable: `bridge-${id}`,
              ackWaitMillis: 30_000,
              maxAckPending: 10_000,
              batchSize: batch,
              drained: () => said.push('drained'),
              behind: () => said.push('behind'),
            });
            await source.open();
            let handed = 0;
            const running = source.run(
              (_text, delivery) => {
                handed += 1;
                said.push('message');
                delivery.ack();
                if (handed === batch * pulls) source.stop();
              },
              () => true,
            );
            await running;
            await source.close();
          } finally {
            await nc.drain();
            await deleteNatsStream(stream);
          }
          // Each full pull but the last is behind; the last read to the end.
          const expected: string[] = [];
          for (let p = 1; p <= pulls; p += 1)
            expected.push(
              ...Array<string>(batch).fill('message'),
              p < pulls ? 'behind' : 'drained',
            );
          expect(said).toEqual(expected);
        },
      ),
      { numRuns: 8 },
    );
  }, 60_000);
});
