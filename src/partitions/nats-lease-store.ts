import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { LeaseStore } from './lease-store.js';

/**
 * Leases and membership in a JetStream key-value bucket whose entries live `leaseMillis` (the
 * bucket's TTL, kept by the server): `create` takes a free lease (its revision is the ownership's
 * epoch), `update` on the last revision renews it (compare and set: a lease someone else took, or
 * that expired, fails), membership keys are refreshed by each heartbeat and counted once each.
 */
export async function createNatsLeaseStore(options: {
  readonly connection: NatsConnection;
  readonly bucket: string;
  readonly instanceId: string;
  readonly leaseMillis: number;
}): Promise<LeaseStore> {
  const { instanceId, leaseMillis } = options;
  const kv = await new Kvm(jetstream(options.connection)).create(options.bucket, {
    ttl: leaseMillis,
    history: 1,
  });
  /** Per partition held: the revision last written. */
  const held = new Map<number, { revision: number }>();
  const lease = (p: number) => `lease.${p}`;
  const member = `member.${instanceId.replace(/[^A-Za-z0-9_=-]/g, '_')}`;
  return {
    async heartbeat() {
      await kv.put(member, instanceId);
      // A listing taken while others write their keys can name one key twice.
      const live = new Set<string>();
      for await (const key of await kv.keys('member.*')) if (key !== '') live.add(key);
      return Math.max(1, live.size);
    },
    async acquire(p) {
      try {
        const epoch = await kv.create(lease(p), instanceId);
        held.set(p, { revision: epoch });
        return epoch;
      } catch {
        return undefined;
      }
    },
    async renew(p) {
      const entry = held.get(p);
      if (entry === undefined) return false;
      try {
        entry.revision = await kv.update(lease(p), instanceId, entry.revision);
        return true;
      } catch {
        held.delete(p);
        return false;
      }
    },
    async release(p) {
      const entry = held.get(p);
      held.delete(p);
      if (entry === undefined) return;
      await kv.delete(lease(p), { previousSeq: entry.revision }).catch(() => undefined);
    },
    async close() {
      await kv.delete(member).catch(() => undefined);
    },
  };
}
