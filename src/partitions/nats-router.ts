import type { NatsConnection } from '@nats-io/transport-node';
import type { Delivery } from '../sources/delivery.js';
import { connectNats } from '../sources/nats-connection.js';
import { createNatsSource } from '../sources/nats-source.js';
import { createNatsLeaseStore } from './nats-lease-store.js';
import { NatsStoredPublisher } from './nats-stored-publisher.js';
import { partitionOfEvent } from './partition-of.js';
import type { Router, RouterOptions } from './router.js';
import { holdRouterLease } from './router-lease.js';
import type { RoutingTerm } from './router-lease.js';
import { behindMarks, markText, routedSubject } from './routed-marks.js';

/**
 * Routes a JetStream subject to its partitions: each message is republished to
 * `<subject>.<p>` with `Nats-Msg-Id: <stream>:<sequence>` (the partition stream drops a second
 * copy within its duplicate window), and acknowledged on the source only after the partition
 * stream stored it.
 *
 * After each read to the end, once its copies are stored, it sends a drain mark; at the start of a
 * term and while it reads full pulls (a backlog), a behind mark (routed-marks.ts).
 *
 * One router routes at a time (the routing lease, in the bucket `<stream>_<durable>_routing`); others stand
 * by. Routing alone keeps every run's order: the router reads the durable consumer as an
 * instance reads its partition, so messages lost in a failed pull, or held by a router that died
 * or paused past its lease, come back (after the ack wait) ahead of anything newer, where two
 * routers side by side would publish newer events of their runs first.
 */
export function createNatsRouter(options: RouterOptions): Router {
  const stopping = new AbortController();
  let routed = 0;

  /** One term: the durable consumer read in order, each message published then acknowledged. */
  const route = async (nc: NatsConnection, term: RoutingTerm) => {
    // Read to the end at this time, copies perhaps still being stored: marked once they are.
    let drainedAt: number | undefined;
    // Read full, copies perhaps still being stored: a behind mark once they are (at most so often).
    let behind = false;
    const behindMark = behindMarks((text) => nc.publish(routedSubject(options.source), text));
    const source = createNatsSource({
      url: options.url,
      stream: options.stream,
      subject: options.source,
      durable: options.group,
      ackWaitMillis: options.ackWaitMillis,
      maxAckPending: 20_000,
      batchSize: options.batchSize,
      report: options.report,
      drained: (at) => (drainedAt = at),
      behind: () => (behind = true),
    });
    const copies = new NatsStoredPublisher(nc);
    let failure: Error | undefined;
    const stop = () => source.stop();
    term.ended.addEventListener('abort', stop, { once: true });
    try {
      // Instances hold their windows from here until this term reads to the end.
      behindMark.mark();
      await source.open();
      if (term.ended.aborted) return;
      // Copies read in one turn of the event loop, published together in the next (the client
      // writes what is published in one synchronous stretch to its socket at once).
      let queued: Copy[] = [];
      const publishQueued = () => {
        const read = queued;
        queued = [];
        for (const { text, delivery } of read) {
          if (failure !== undefined) return;
          if (!term.mayAct()) {
            // Neither published nor acknowledged: the term ends here, for a message skipped
            // while newer ones were routed would come back (after the ack wait) behind them. The
            // next term reads it again ahead of anything newer.
            failure = new StaleTerm();
            options.report(
              `stopped routing (epoch ${term.epoch}): its lease may lapse before the next message is routed`,
            );
            source.stop();
            return;
          }
          const p = partitionOfEvent(text, options.partitions);
          // Published in order over one connection; acknowledged once its copy is stored.
          copies.publish(
            `${options.source}.${p}`,
            text,
            `${options.stream}:${delivery.sequence}`,
            (error) => {
              if (error !== undefined) {
                // A copy not stored while later ones may be: this term ends, and the next one
                // reads what was not acknowledged, in order, before anything newer.
                failure ??= error;
                source.stop();
              } else if (term.mayAct()) {
                delivery.ack();
                routed += 1;
              }
              // Every copy stored: the next pull need not wait out the source's pause.
              if (copies.size === 0 && queued.length === 0) source.wake?.();
            },
          );
        }
      };
      await source.run(
        (text, delivery) => {
          if (failure !== undefined) return;
          if (queued.length === 0) setImmediate(publishQueued);
          queued.push({ text, delivery });
        },
        () => {
          if (!term.mayAct() || failure !== undefined) return false;
          if (copies.size > 0 || queued.length > 0) return false;
          if (drainedAt !== undefined) {
            nc.publish(routedSubject(options.source), markText(Date.now() - drainedAt));
            drainedAt = undefined;
          } else if (behind) behindMark.ifDue();
          behind = false;
          return true;
        },
      );
      // What was read last, unless the term failed.
      publishQueued();
      await copies.idle();
    } finally {
      term.ended.removeEventListener('abort', stop);
      copies.close();
      await source.close();
    }
    if (failure !== undefined)
      throw failure instanceof Error ? failure : new Error(String(failure));
  };

  return {
    get routed() {
      return routed;
    },
    async run() {
      const nc = await connectNats(options.url, 'agent-otel-bridge-router');
      try {
        const store = await createNatsLeaseStore({
          connection: nc,
          bucket: routingBucket(options.stream, options.group),
          instanceId: options.consumer,
          leaseMillis: options.leaseMillis,
        });
        await holdRouterLease({
          store,
          leaseMillis: options.leaseMillis,
          stopping: stopping.signal,
          report: options.report,
          route: (term) => route(nc, term),
        });
        await store.close();
      } finally {
        await nc.drain().catch(() => undefined);
      }
    },
    stop() {
      stopping.abort();
    },
  };
}

/** A message read, its copy not yet published. */
interface Copy {
  readonly text: string;
  readonly delivery: Delivery;
}

/** A message left unrouted because the term may no longer act. */
class StaleTerm extends Error {}

/** The routing lease's bucket: one per source stream and durable, as the durable is. */
export function routingBucket(stream: string, group: string): string {
  return `${stream}_${group}_routing`.replace(/[^A-Za-z0-9_-]/g, '_');
}
