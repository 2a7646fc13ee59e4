// The routing lease (`holdRouterLease`) on the real NATS JetStream of this machine, with faults
// made around the real lease store: the broker away while a router asks, another router holding
// the lease, a renewal refused, a renewal answered too late, a term whose routing fails, a router
// stopped on purpose. In each the term ends as docs/scaling-out.md says (fenced or not), says why
// once, and the lease goes to the next router at once.
import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { LeaseStore } from '../../src/partitions/lease-store.js';
import { createNatsLeaseStore } from '../../src/partitions/nats-lease-store.js';
import { holdRouterLease } from '../../src/partitions/router-lease.js';
import type { RoutingTerm } from '../../src/partitions/router-lease.js';
import { NATS_URL } from '../helpers/brokers.js';
import { waitFor } from '../helpers/wire-spans.js';

const LEASE_MILLIS = 1200;

/** Faults made around a real lease store: each call either passes through or fails as set. */
interface Faults {
  /** `stop`: the router is stopped while its ask is on its way, and the ask then succeeds. */
  acquire: 'pass' | 'throw' | 'stop';
  renew: 'pass' | 'refuse' | 'throw' | { readonly lateMillis: number };
}

interface Router {
  readonly reports: string[];
  readonly terms: RoutingTerm[];
  readonly faults: Faults;
  /** Renewals sent to the broker. */
  renewals: number;
  /** Times it asked for the lease (faulty or not). */
  asks: number;
  readonly stopping: AbortController;
  readonly done: Promise<void>;
}

/** A term's routing that ends when told to, noting whether the term could still act at that moment. */
function mayActWhenEnded() {
  const noted: { mayAct: boolean | undefined; route: (term: RoutingTerm) => Promise<void> } = {
    mayAct: undefined,
    route: (term) =>
      new Promise((resolve) =>
        term.ended.addEventListener('abort', () => {
          noted.mayAct ??= term.mayAct();
          resolve();
        }),
      ),
  };
  return noted;
}

describe('the routing lease', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });

  function setUp() {
    const bucket = `aob-routing-${randomUUID().slice(0, 8)}`;
    const connections: NatsConnection[] = [];
    cleanups.push(async () => {
      for (const c of connections) await c.drain().catch(() => undefined);
      const nc = await connect({ servers: NATS_URL });
      await (await jetstreamManager(nc)).streams.delete(`KV_${bucket}`).catch(() => undefined);
      await nc.drain();
    });
    const store = async (instanceId: string): Promise<LeaseStore> => {
      const connection = await connect({ servers: NATS_URL });
      connections.push(connection);
      return createNatsLeaseStore({ connection, bucket, instanceId, leaseMillis: LEASE_MILLIS });
    };
    /** A router whose term runs `route` (by default: until the term ends). */
    const router = async (
      name: string,
      route: (term: RoutingTerm) => Promise<void> = (term) =>
        new Promise((resolve) => term.ended.addEventListener('abort', () => resolve())),
      initially: Partial<Faults> = {},
    ): Promise<Router> => {
      const real = await store(name);
      const faults: Faults = { acquire: 'pass', renew: 'pass', ...initially };
      const state = { renewals: 0, asks: 0 };
      const stopping = new AbortController();
      const faulty: LeaseStore = {
        heartbeat: () => real.heartbeat(),
        acquire: (p) => {
          state.asks += 1;
          if (faults.acquire === 'stop') stopping.abort();
          return faults.acquire === 'throw'
            ? Promise.reject(new Error('broker away'))
            : real.acquire(p);
        },
        renew: async (p) => {
          const fault = faults.renew;
          if (fault === 'refuse') return false;
          if (fault === 'throw') throw new Error('broker away');
          state.renewals += 1;
          const ok = await real.renew(p);
          if (typeof fault === 'object') await new Promise((r) => setTimeout(r, fault.lateMillis));
          return ok;
        },
        release: (p) => real.release(p),
        close: () => real.close(),
      };
      const reports: string[] = [];
      const terms: RoutingTerm[] = [];
      const done = holdRouterLease({
        store: faulty,
        leaseMillis: LEASE_MILLIS,
        stopping: stopping.signal,
        report: (message) => reports.push(message),
        route: (term) => {
          terms.push(term);
          return route(term);
        },
      });
      cleanups.push(async () => {
        stopping.abort();
        await done;
      });
      return {
        reports,
        terms,
        faults,
        get renewals() {
          return state.renewals;
        },
        get asks() {
          return state.asks;
        },
        stopping,
        done,
      };
    };
    return { store, router };
  }

  it('says once that the lease cannot be read while the broker is away, and once that it can again', async () => {
    const { router } = setUp();
    const a = await router('a', undefined, { acquire: 'throw' });
    // It asks again (every quarter of the lease time) and says it once.
    await waitFor(() => a.asks >= 4, 10_000, 'a asking four times');
    expect(a.terms).toEqual([]);
    a.faults.acquire = 'pass';
    await waitFor(() => a.terms.length === 1, 10_000, 'a term once the broker is back');
    expect(a.reports).toEqual([
      'the routing lease cannot be read (broker away); asking again',
      'the routing lease can be read again',
      `routing (epoch ${a.terms[0]!.epoch})`,
    ]);
  });

  it('stands by while another router routes and says so once; a router stopped on purpose releases the lease', async () => {
    const { router, store } = setUp();
    // What a's term may do when it is told to end: publish and acknowledge the batch in hand.
    const whenEnded = mayActWhenEnded();
    const a = await router('a', whenEnded.route);
    await waitFor(() => a.terms.length === 1, 10_000, 'a routing');
    const b = await router('b');
    await waitFor(
      () => b.reports.includes('standing by: another router routes now'),
      10_000,
      'b standing by',
    );
    // It asks again and again, and says it stands by only once.
    await waitFor(() => b.asks >= 3, 10_000, 'b asking three times');
    expect(b.reports).toEqual(['standing by: another router routes now']);
    b.stopping.abort();
    await b.done;
    expect(b.terms).toEqual([]);
    a.stopping.abort();
    await a.done;
    // Released, not left to lapse: the lease is free the moment a is done.
    const probe = await store('probe');
    expect(await probe.acquire(0)).toBeDefined();
    await probe.release(0);
    // Stopped on purpose: a's term ended without fencing what it had in hand; once it settled
    // that, the term is over.
    expect(whenEnded.mayAct).toBe(true);
    expect(a.terms[0]!.mayAct()).toBe(false);
    expect(a.reports).toEqual([`routing (epoch ${a.terms[0]!.epoch})`]);
    const c = await router('c');
    await waitFor(() => c.terms.length === 1, 10_000, 'c routing after the release');
    expect(c.terms[0]!.epoch).toBeGreaterThan(a.terms[0]!.epoch);
    expect(c.reports).toEqual([`routing (epoch ${c.terms[0]!.epoch})`]);
  });

  it('a router stopped while it asks for the lease begins no term, gives the lease back and ends', async () => {
    const { router, store } = setUp();
    const a = await router('a', undefined, { acquire: 'stop' });
    // It ends by itself: no term waits for an end that was asked for before it began.
    let ended = false;
    void a.done.then(() => (ended = true));
    await waitFor(() => ended, 10_000, 'a ended');
    expect(a.asks).toBe(1);
    expect(a.terms).toEqual([]);
    expect(a.reports).toEqual([]);
    const probe = await store('probe');
    expect(await probe.acquire(0)).toBeDefined();
    await probe.release(0);
  });

  it('renews every quarter of the lease time, so that a term lasting many lease times goes on', async () => {
    const { router } = setUp();
    const a = await router('a');
    await waitFor(() => a.terms.length === 1, 10_000, 'a routing');
    // Sixteen renewals: four lease times.
    await waitFor(() => a.renewals >= 16, 20_000, 'sixteen renewals');
    expect(a.terms[0]!.ended.aborted).toBe(false);
    expect(a.terms[0]!.mayAct()).toBe(true);
    expect(a.terms[0]!.readWindow()).toBeGreaterThan(0);
    expect(a.reports).toEqual([`routing (epoch ${a.terms[0]!.epoch})`]);
  });

  it.each(['refuse', 'throw'] as const)(
    'ends and fences its term at once when a renewal fails (%s), says so, lets the next router take over and takes the lease again later',
    async (fault) => {
      const { router } = setUp();
      // Whether a's term may still act at the moment it is told to end: not once its lease is lost.
      const whenEnded = mayActWhenEnded();
      const a = await router('a', whenEnded.route);
      await waitFor(() => a.terms.length === 1, 10_000, 'a routing');
      const b = await router('b');
      a.faults.renew = fault;
      await waitFor(() => a.terms[0]!.ended.aborted, 10_000, "a's term ended");
      const term = a.terms[0]!;
      expect(whenEnded.mayAct).toBe(false);
      expect(term.mayAct()).toBe(false);
      expect(term.readWindow()).toBeLessThanOrEqual(0);
      expect(a.reports).toContain(`stopped routing (epoch ${term.epoch}): its lease was lost`);
      await waitFor(() => b.terms.length === 1, 10_000, 'b routing');
      // The router that lost its term waits a lease time before it asks again: b holds it.
      expect(a.terms).toHaveLength(1);
      // Once b stops, a routes again.
      a.faults.renew = 'pass';
      b.stopping.abort();
      await b.done;
      await waitFor(() => a.terms.length === 2, 10_000, 'a routing again');
      expect(a.terms[1]!.epoch).toBeGreaterThan(b.terms[0]!.epoch);
    },
  );

  it('ends and fences its term when a renewal is answered too late to keep the lease surely held', async () => {
    const { router } = setUp();
    const a = await router('a');
    await waitFor(() => a.terms.length === 1, 10_000, 'a routing');
    a.faults.renew = { lateMillis: LEASE_MILLIS };
    await waitFor(() => a.terms[0]!.ended.aborted, 10_000, "a's term ended");
    expect(a.terms[0]!.mayAct()).toBe(false);
    expect(a.reports).toContain(
      `stopped routing (epoch ${a.terms[0]!.epoch}): its lease could not be renewed in time`,
    );
  });

  it('ends and fences a term whose routing fails, says why, and lets the next router take over', async () => {
    const { router } = setUp();
    let fail = true;
    const a = await router('a', async (term) => {
      if (fail) throw new Error('no stream');
      await new Promise((resolve) => term.ended.addEventListener('abort', resolve));
    });
    await waitFor(() => a.terms.length === 1, 10_000, 'a routing');
    await waitFor(() => a.terms[0]!.ended.aborted, 10_000, "a's term ended");
    expect(a.terms[0]!.mayAct()).toBe(false);
    expect(a.reports).toContain(
      `stopped routing (epoch ${a.terms[0]!.epoch}): routing failed: no stream`,
    );
    const b = await router('b');
    await waitFor(() => b.terms.length === 1, 10_000, 'b routing after the failed term');
    fail = false;
  });
});
