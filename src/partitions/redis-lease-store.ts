import { connectRedis } from '../sources/redis-connection.js';
import type { RedisClient } from '../sources/redis-connection.js';
import type { LeaseStore } from './lease-store.js';

type Client = RedisClient;

// The lease's value is `<instance>/<epoch>`; the epoch comes from a counter per partition, so a
// previous owner's value never equals a later one's, even for the same instance.
const ACQUIRE = `
if redis.call('PTTL', KEYS[1]) == -1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '/' .. epoch, 'PX', ARGV[2])
return epoch`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
// Membership scored by the server's own clock: entries older than a lease, or dated in the future
// (written by a client clock), are not members.
const HEARTBEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('ZREMRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
return redis.call('ZCARD', KEYS[1])`;

/**
 * Leases as Redis keys (`<prefix>:lease:<p>`, set with an expiry and renewed by the owner with a
 * compare-and-extend script), each ownership numbered by `<prefix>:epoch:<p>`; membership as a
 * sorted set of heartbeat times taken from the server's clock. `prefix` names the deployment
 * (stream and group).
 */
export async function createRedisLeaseStore(options: {
  readonly url: string;
  readonly prefix: string;
  readonly instanceId: string;
  readonly leaseMillis: number;
}): Promise<LeaseStore> {
  const client: Client = await connectRedis(options.url);
  const { prefix, instanceId, leaseMillis } = options;
  const members = `${prefix}:members`;
  const lease = (p: number) => redisLeaseKey(prefix, p);
  const values = new Map<number, string>();
  return {
    async heartbeat() {
      const live = await client.eval(HEARTBEAT, {
        keys: [members],
        arguments: [instanceId, String(leaseMillis)],
      });
      return Math.max(1, Number(live));
    },
    async acquire(p) {
      const epoch = Number(
        await client.eval(ACQUIRE, {
          keys: [lease(p), `${prefix}:epoch:${p}`],
          arguments: [instanceId, String(leaseMillis)],
        }),
      );
      if (epoch === 0) return undefined;
      values.set(p, `${instanceId}/${epoch}`);
      return epoch;
    },
    async renew(p) {
      const value = values.get(p);
      if (value === undefined) return false;
      const renewed = await client.eval(RENEW, {
        keys: [lease(p)],
        arguments: [value, String(leaseMillis)],
      });
      if (renewed === 1) return true;
      values.delete(p);
      return false;
    },
    async release(p) {
      const value = values.get(p);
      values.delete(p);
      if (value === undefined) return;
      await client.eval(RELEASE, { keys: [lease(p)], arguments: [value] });
    },
    async close() {
      await client.zRem(members, instanceId).catch(() => undefined);
      client.destroy();
    },
  };
}

/** The key of partition `p`'s lease, whose value is `<instance>/<epoch>` while it is held. */
export const redisLeaseKey = (prefix: string, p: number) => `${prefix}:lease:${p}`;
