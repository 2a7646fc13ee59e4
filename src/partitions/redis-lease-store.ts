import { createClient } from 'redis';
import type { LeaseStore } from './lease-store.js';

type Client = ReturnType<typeof createClient>;

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/**
 * Leases as Redis keys (`SET NX PX`, renewed by the owner with a compare-and-extend script), and
 * membership as a sorted set of heartbeat times. `prefix` names the deployment (stream and group).
 */
export async function createRedisLeaseStore(options: {
  readonly url: string;
  readonly prefix: string;
  readonly instanceId: string;
  readonly leaseMillis: number;
}): Promise<LeaseStore> {
  const client: Client = createClient({ url: options.url });
  client.on('error', () => undefined);
  await client.connect();
  const { prefix, instanceId, leaseMillis } = options;
  const members = `${prefix}:members`;
  const lease = (p: number) => `${prefix}:lease:${p}`;
  return {
    async heartbeat() {
      const now = Date.now();
      await client.zAdd(members, { score: now, value: instanceId });
      await client.zRemRangeByScore(members, '-inf', now - leaseMillis);
      return Math.max(1, await client.zCard(members));
    },
    async acquire(p) {
      const set = await client.set(lease(p), instanceId, { NX: true, PX: leaseMillis });
      return set === 'OK';
    },
    async renew(p) {
      const renewed = await client.eval(RENEW, {
        keys: [lease(p)],
        arguments: [instanceId, String(leaseMillis)],
      });
      return renewed === 1;
    },
    async release(p) {
      await client.eval(RELEASE, { keys: [lease(p)], arguments: [instanceId] });
    },
    async close() {
      await client.zRem(members, instanceId).catch(() => undefined);
      client.destroy();
    },
  };
}
