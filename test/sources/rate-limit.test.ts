import { describe, expect, it } from 'vitest';
import { ClientRateLimit } from '../../src/sources/rate-limit.js';

describe('per-client request rate', () => {
  it('lets a burst of twice the rate through, then one request per refilled token', () => {
    let now = 0;
    const limit = new ClientRateLimit(10, () => now);
    const burst = Array.from({ length: 25 }, () => limit.take('a'));
    expect(burst.filter((w) => w === 0)).toHaveLength(20);
    expect(burst.slice(20)).toEqual([1, 1, 1, 1, 1]);
    now += 100; // one token back
    expect(limit.take('a')).toBe(0);
    expect(limit.take('a')).toBe(1);
  });

  it('keeps clients apart and forgets the one seen longest ago beyond its capacity', () => {
    const now = 0;
    const limit = new ClientRateLimit(1, () => now, 2);
    expect([limit.take('a'), limit.take('a'), limit.take('a')]).toEqual([0, 0, 1]);
    expect(limit.take('b')).toBe(0);
    expect(limit.take('c')).toBe(0); // 'a' is forgotten: it comes back with a full bucket
    expect(limit.take('a')).toBe(0);
  });
});
