// When an ownership may act: not fenced, and renewed within three quarters of the lease time
// (its lease cannot have lapsed, and what it sends reaches the broker within the last quarter).
import { describe, expect, it } from 'vitest';
import { ACT_WITHIN_LEASE, createOwnership, mayAct } from '../../src/partitions/ownership.js';
import type { BrokerSource } from '../../src/sources/broker-source.js';

const LEASE = 1000;
const source = { description: 'none' } as unknown as BrokerSource;

describe('ownership', () => {
  it('acts up to three quarters of the lease after its last renewal, and not a millisecond after', () => {
    const own = createOwnership(2, 7, source, 10_000);
    expect(own.state).toBe('taking');
    expect(ACT_WITHIN_LEASE).toBe(0.75);
    expect(mayAct(own, LEASE, 10_000)).toBe(true);
    expect(mayAct(own, LEASE, 10_750)).toBe(true);
    expect(mayAct(own, LEASE, 10_751)).toBe(false);
    own.renewedAt = 10_500;
    expect(mayAct(own, LEASE, 11_250)).toBe(true);
    expect(mayAct(own, LEASE, 11_251)).toBe(false);
  });

  it('never acts once fenced, however recently renewed', () => {
    const own = createOwnership(0, 1, source, 10_000);
    own.fenced = true;
    expect(mayAct(own, LEASE, 10_000)).toBe(false);
  });
});
