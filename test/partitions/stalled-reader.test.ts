// A read is an effect: on Redis, an entry a consumer reads stays in that consumer's pending list,
// and only a new owner's claim when it takes the partition finds it. An owner whose event loop
// stalled past its lease while waiting for entries must not read again when it resumes: the next
// owner has taken the partition and claimed what was pending by then, so whatever the stale read
// took would stay unread for good. Real Redis streams and leases; two instances in one process,
// the stall a busy wait between reads; stall lengths, message counts and spacing generated.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { createClient } from 'redis';
import { describe, it } from 'vitest';
import type { BrokerSource } from '../../src/sources/broker-source.js';
import { REDIS_URL } from '../helpers/brokers.js';
import { redisPartitionInstance } from '../helpers/redis-partitions.js';
import { waitFor } from '../helpers/wire-spans.js';

const LEASE_MILLIS = 900;

function instance(key: string, id: string, reports: string[]): BrokerSource {
  return redisPartitionInstance({
    key,
    id,
    partitions: 1,
    leaseMillis: LEASE_MILLIS,
    batchSize: 100,
    report: (message) => reports.push(`${id}: ${message}`),
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('an owner that stalls while waiting for entries', () => {
  it('reads nothing after the stall, so every entry published after it is applied by the next owner', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          stallLeases: fc.double({ min: 1.3, max: 3, noNaN: true }),
          messages: fc.integer({ min: 10, max: 40 }),
          spacingMillis: fc.integer({ min: 0, max: 40 }),
          // From the end of the stall to the first publish: the next owner takes over meanwhile.
          delayMillis: fc.integer({ min: 0, max: 600 }),
        }),
        async ({ stallLeases, messages, spacingMillis, delayMillis }) => {
          const key = `aob-stale-read-${randomUUID().slice(0, 8)}`;
          const redis = createClient({ url: REDIS_URL });
          await redis.connect();
          const reports: string[] = [];
          const applied = new Map<string, string>();
          const instances = ['first', 'second'].map((id) => ({
            id,
            source: instance(key, id, reports),
          }));
          const running: Promise<void>[] = [];
          try {
            for (const { id, source } of instances) {
              await source.open();
              running.push(
                source.run(
                  (text, delivery) => {
                    applied.set(text, id);
                    delivery.ack();
                  },
                  () => true,
                ),
              );
              // The first owns the partition before the second starts.
              if (id === 'first')
                await waitFor(
                  () => reports.some((r) => r.startsWith('first: owns partition 0')),
                  10_000,
                  'the first instance owning the partition',
                );
            }
            // Both wait for entries; then the whole process stalls past the lease.
            await sleep(LEASE_MILLIS / 2);
            const until = Date.now() + LEASE_MILLIS * stallLeases;
            while (Date.now() < until);
            await sleep(delayMillis);
            for (let i = 0; i < messages; i += 1) {
              await redis.xAdd(`${key}:0`, '*', { event: `m${i}` });
              if (spacingMillis > 0) await sleep(spacingMillis);
            }
            const missing = () =>
              Array.from({ length: messages }, (_, i) => `m${i}`).filter((m) => !applied.has(m));
            const pendingByConsumer = async () =>
              (await redis.xPending(`${key}:0`, 'bridge')).consumers ?? [];
            await waitFor(
              () => missing().length === 0,
              8_000,
              `every entry applied (stall ${stallLeases.toFixed(2)} leases)`,
            ).catch(async (error: Error) => {
              throw new Error(
                `${error.message}: missing ${missing().join(', ')}; pending ${JSON.stringify(await pendingByConsumer())}; ${reports.join(' | ')}`,
              );
            });
            // Every entry acknowledged: none left in any consumer's pending list.
            await waitFor(
              async () => (await pendingByConsumer()).length === 0,
              5_000,
              'every entry acknowledged',
            ).catch(async (error: Error) => {
              throw new Error(`${error.message}: ${JSON.stringify(await pendingByConsumer())}`);
            });
          } finally {
            for (const { source } of instances) source.stop();
            await Promise.all(running.map((r) => r.catch(() => undefined)));
            for (const { source } of instances) await source.close();
            for (const k of await redis.keys(`${key}*`)) await redis.del(k);
            await redis.quit();
          }
        },
      ),
      { numRuns: 6, seed: 2311, endOnFailure: true },
    );
  }, 120_000);
});
