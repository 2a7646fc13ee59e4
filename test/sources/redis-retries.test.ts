// A run whose export failed has all its messages asked back at once; the asking can cross a
// millisecond or two. The Redis source hands them back together, in one pass, in the order they
// were asked back. Real Redis, with other entries arriving meanwhile (a busy stream reads often);
// generated numbers of messages, delays, and places and lengths of a slowdown in the asking.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedisSource } from '../../src/sources/redis-source.js';
import type { Delivery } from '../../src/sources/delivery.js';
import { deleteRedisKey, publishToRedis, REDIS_URL } from '../helpers/brokers.js';

/** Spins for `millis` (a ledger naking many messages takes that long on a busy machine). */
function spin(millis: number): void {
  const until = performance.now() + millis;
  while (performance.now() < until);
}

describe('redis source redeliveries', () => {
  it('hands back the messages asked back together in one pass, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 100, max: 900 }),
        fc.nat(),
        fc.integer({ min: 0, max: 20 }),
        async (count, delay, at, slowFor) => {
          const key = `aob:retries:${randomUUID().slice(0, 8)}`;
          await publishToRedis(
            key,
            Array.from({ length: count }, (_, i) => `line ${i}`),
          );
          const source = createRedisSource({
            url: REDIS_URL,
            stream: key,
            group: 'g',
            consumer: 'c',
            claimIdleMillis: 60_000,
            batchSize: 50,
          });
          // The event loop's passes, counted: what is handed over in one pass shares a number.
          let pass = 0;
          let counting = true;
          const count_ = () => {
            pass += 1;
            if (counting) setImmediate(count_);
          };
          setImmediate(count_);
          const first: { text: string; delivery: Delivery }[] = [];
          const again: { text: string; pass: number }[] = [];
          let done: () => void = () => undefined;
          const finished = new Promise<void>((resolve) => (done = resolve));
          try {
            await source.open();
            const running = source.run(
              (text, delivery) => {
                if (text === 'traffic') {
                  delivery.ack();
                  return;
                }
                if (first.length < count) {
                  first.push({ text, delivery });
                  if (first.length < count) return;
                  // Every message asked back in one go, slowed somewhere in the middle.
                  const slowAt = at % count;
                  first.forEach((f, i) => {
                    if (i === slowAt) spin(slowFor);
                    f.delivery.nak(delay);
                  });
                  return;
                }
                again.push({ text, pass });
                delivery.ack();
                if (again.length === count) done();
              },
              () => true,
            );
            // Other entries arrive every few milliseconds until the last one is back.
            const traffic = setInterval(
              () => void publishToRedis(key, ['traffic']).catch(() => undefined),
              4,
            );
            await finished;
            clearInterval(traffic);
            source.stop();
            await running;
            expect(again.map((a) => a.text)).toEqual(first.map((f) => f.text));
            expect(new Set(again.map((a) => a.pass)).size).toBe(1);
          } finally {
            counting = false;
            await source.close();
            await deleteRedisKey(key);
          }
        },
      ),
      { numRuns: 12 },
    );
  }, 60_000);
});
