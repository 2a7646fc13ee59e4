import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { LeaseStore } from './lease-store.js';

/**
 * Leases and membership in a JetStream key-value bucket whose entries live `leaseMillis` (the
 * bucket's TTL): `create` takes a free lease, `update` on the last revision renews it (compare and
 * set: a lease someone else took, or that expired, fails), membership keys are refreshed by each
 * heartbeat and counted.
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
  const revisions = new Map<number, number>();
  const lease = (p: number) => `lease.${p}`;
  const member = `member.${instanceId.replace(/[^A-Za-z0-9_=-]/g, '_')}`;
  return {
    async heartbeat() {
      await kv.put(member, instanceId);
      let live = 0;
      for await (const key of await kv.keys('member.*')) {
        if (key !== '') live += 1;
      }
      return Math.max(1, live);
    },
    async acquire(p) {
      try {
        revisions.set(p, await kv.create(lease(p), instanceId));
        return true;
      } catch {
        return false;
      }
    },
    async renew(p) {
      const revision = revisions.get(p);
      if (revision === undefined) return false;
      try {
        revisions.set(p, await kv.update(lease(p), instanceId, revision));
        return true;
      } catch {
        revisions.delete(p);
        return false;
      }
    },
    async release(p) {
      const revision = revisions.get(p);
      revisions.delete(p);
      if (revision === undefined) return;
      await kv.delete(lease(p), { previousSeq: revision }).catch(() => undefined);
    },
    async close() {
      await kv.delete(member).catch(() => undefined);
    },
  };
}
