import { pause } from '../sources/broker-source.js';
import type { LeaseStore } from './lease-store.js';
import { actWindow, mayAct } from './ownership.js';
import type { Lease } from './ownership.js';

/** The lease's key in the routers' lease store: one lease, one router routing at a time. */
const ROUTING = 0;

/** What one term of routing gets: when it may act, and a signal that its term is over. */
export interface RoutingTerm {
  readonly epoch: number;
  /** Whether an effect (a publish, an acknowledgement) may be sent now. */
  mayAct(): boolean;
  /** How long (ms) a read sent now may stay open while the term may still act. */
  readWindow(): number;
  /** Aborted when the term ends: the lease was lost or not renewed in time, or the router stops. */
  readonly ended: AbortSignal;
}

export interface RouterLeaseOptions {
  readonly store: LeaseStore;
  readonly leaseMillis: number;
  /** Ends every wait and the current term. */
  readonly stopping: AbortSignal;
  readonly report: (message: string) => void;
  /** Routes for one term; resolves once it stopped and settled what it can. */
  readonly route: (term: RoutingTerm) => Promise<void>;
}

/**
 * Routers route one at a time: the one holding the routing lease reads the runtime's stream in
 * order; the others stand by and take the lease when it lapses (the holder died, or paused past
 * its lease). A term's effects are fenced like a partition owner's (docs/scaling-out.md): each is
 * sent only while the lease cannot have lapsed, so a router that resumes after its successor took
 * over publishes and acknowledges nothing more. A router that lost its term waits a lease time
 * before it asks again, so that two routers cannot take turns on every renewal.
 */
export async function holdRouterLease(options: RouterLeaseOptions): Promise<void> {
  const { store, leaseMillis, stopping, report } = options;
  const renewEvery = Math.max(50, Math.floor(leaseMillis / 4));
  let standingBy = false;
  let unreachable = false;
  while (!stopping.aborted) {
    const askedAt = Date.now();
    let epoch: number | undefined;
    try {
      epoch = await store.acquire(ROUTING);
      if (unreachable) report('the routing lease can be read again');
      unreachable = false;
    } catch (error) {
      // The broker is away (a restart, a lost connection): said once, asked again.
      if (!unreachable)
        report(`the routing lease cannot be read (${messageOf(error)}); asking again`);
      unreachable = true;
      await pause(renewEvery, stopping);
      continue;
    }
    if (epoch === undefined) {
      if (!standingBy) report('standing by: another router routes now');
      standingBy = true;
      // Asked at least every second: a lease released on purpose is taken at once.
      await pause(Math.min(renewEvery, 1000), stopping);
      continue;
    }
    if (stopping.aborted) {
      // Stopped while it asked: no term begins (its end was asked for already), and the lease
      // goes back at once.
      await store.release(ROUTING).catch(() => undefined);
      return;
    }
    standingBy = false;
    const own: Lease = { renewedAt: askedAt, fenced: false };
    const ended = new AbortController();
    /** Ends the term: reading stops; a lost lease also fences what is still in flight. */
    const end = (why: string | undefined, fence: boolean) => {
      if (fence) own.fenced = true;
      if (ended.signal.aborted) return;
      if (why !== undefined) report(`stopped routing (epoch ${epoch}): ${why}`);
      ended.abort();
    };
    // Stopped on purpose, the term still publishes and acknowledges the batch in hand.
    const onStop = () => end(undefined, false);
    stopping.addEventListener('abort', onStop, { once: true });
    report(`routing (epoch ${epoch})`);
    const renewing = renew(own, store, leaseMillis, renewEvery, ended.signal, (why) =>
      end(why, true),
    );
    try {
      await options.route({
        epoch,
        mayAct: () => mayAct(own, leaseMillis),
        readWindow: () => actWindow(own, leaseMillis),
        ended: ended.signal,
      });
    } catch (error) {
      end(`routing failed: ${messageOf(error)}`, true);
    }
    end(undefined, true);
    stopping.removeEventListener('abort', onStop);
    await renewing;
    // The next router takes over at once, not a lease later (only this term's lease is deleted).
    await store.release(ROUTING).catch(() => undefined);
    if (stopping.aborted) return;
    await pause(leaseMillis, stopping);
  }
}

/** Renews the term's lease every `renewEvery` until it ends; ends it when a renewal fails or comes too late. */
async function renew(
  own: Lease,
  store: LeaseStore,
  leaseMillis: number,
  renewEvery: number,
  ended: AbortSignal,
  end: (why: string) => void,
): Promise<void> {
  while (!ended.aborted) {
    await pause(renewEvery, ended);
    if (ended.aborted) return;
    if (!mayAct(own, leaseMillis)) {
      end('its lease could not be renewed in time');
      return;
    }
    const sentAt = Date.now();
    const ok = await store.renew(ROUTING).catch(() => false);
    if (!ok) {
      end('its lease was lost');
      return;
    }
    own.renewedAt = Math.max(own.renewedAt, sentAt);
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
