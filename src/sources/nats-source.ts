import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from './nats-connection.js';
import type { BrokerSource } from './broker-source.js';
import { NatsDeliveries } from './nats-deliveries.js';
import { ConnectionWatch, pause, waitUntilExists, Wakeup } from './broker-source.js';

/** How long `run()` waits before asking `canPull()` again, unless woken. */
const PULL_PAUSE_MILLIS = 50;

export interface NatsSourceOptions {
  readonly url: string;
  readonly stream: string;
  readonly subject: string;
  readonly durable: string;
  /** Redelivery timeout of an unacknowledged message; held messages are kept alive meanwhile. */
  readonly ackWaitMillis: number;
  /** The consumer's max_ack_pending: the most messages held unacknowledged at once. */
  readonly maxAckPending: number;
  readonly batchSize: number;
  /** Told when the connection is lost and when it is back. Default: silent. */
  readonly report?: (message: string) => void;
  /**
   * When set, `open()` refuses (throws this message, given who else reads) to share the durable
   * consumer with a client pulling from it now: each would see part of every run.
   */
  readonly refuseShared?: ((other: string) => string) | undefined;
  /**
   * Told after each pull that ended by its expiry with room left: every message stored before
   * `at` (Date.now(): when it expired at the server, never later than when its end was read) has
   * been handed over, and surely every one stored before `sentAt` (when it was sent). Not told
   * after a failed pull, nor while recovering.
   */
  readonly drained?: (at: number, sentAt: number) => void;
  /** Told after each pull that ended full: there may be more to read (a backlog). */
  readonly behind?: () => void;
}

/** How long a pull waits at the server for messages before it ends empty. */
const PULL_EXPIRES_MILLIS = 1000;

/** After a failed pull: until it has surely expired at the server. */
const FAILED_PULL_EXPIRY_MILLIS = PULL_EXPIRES_MILLIS + 500;
/** Beyond the ack wait, until a failed pull's messages are surely due for redelivery. */
const REDELIVERY_DUE_MARGIN_MILLIS = 250;
/** Beyond the waits for a failed pull's messages, how long their redelivery may take to arrive. */
const LOST_IN_FLIGHT_MARGIN_MILLIS = 1000;

/** Another consumer reads the same durable consumer or group now. */
export class SharedConsumerError extends Error {}

/**
 * A durable JetStream pull consumer with explicit acks. It creates the durable consumer when it is
 * missing (with the ack wait and max-ack-pending given), never the stream: it waits for the stream.
 */
export function createNatsSource(options: NatsSourceOptions): BrokerSource {
  let nc: NatsConnection | undefined;
  let pendingAtStart = 0;
  const stopping = new AbortController();
  // Ends early a pause of `run()` for `canPull()` (see `wake()`).
  const wakeup = new Wakeup();
  const watch = new ConnectionWatch('NATS JetStream', options.report ?? (() => undefined));
  const description = `${options.url} stream ${options.stream} subject ${options.subject} (durable ${options.durable})`;

  const ensureConsumer = async (jsm: JetStreamManager) => {
    // Started before the runtime created its stream: wait for it (stop() ends the wait).
    const found = await waitUntilExists(
      () => jsm.streams.info(options.stream).then(() => true),
      stopping.signal,
      () =>
        options.report?.(
          `JetStream stream ${options.stream} not found at ${options.url} yet: waiting for it to be created (nothing published yet?)`,
        ),
    );
    if (!found) return;
    try {
      const info = await jsm.consumers.info(options.stream, options.durable);
      pendingAtStart = info.num_ack_pending;
      if (options.refuseShared !== undefined && info.num_waiting > 0) {
        // A pull waiting now may be a dead client's last one (it expires within a second): a
        // live consumer pulls again and is still there after it.
        await pause(1500, stopping.signal);
        const again = await jsm.consumers.info(options.stream, options.durable);
        if (again.num_waiting > 0)
          throw new SharedConsumerError(
            options.refuseShared(
              `${again.num_waiting} pull request(s) on durable ${options.durable}`,
            ),
          );
      }
      if (info.config.ack_policy !== AckPolicy.Explicit)
        throw new Error(`consumer ${options.durable} must use explicit acks`);
    } catch (error) {
      if ((error as Error).message.includes('explicit acks')) throw error;
      if (error instanceof SharedConsumerError) throw error;
      await jsm.consumers.add(options.stream, {
        durable_name: options.durable,
        ack_policy: AckPolicy.Explicit,
        filter_subject: options.subject,
        ack_wait: options.ackWaitMillis * 1_000_000,
        max_ack_pending: options.maxAckPending,
      });
    }
  };

  return {
    description,
    keepAliveMillis: Math.max(500, Math.floor(options.ackWaitMillis / 3)),
    async open() {
      nc = await connectNats(options.url);
      await ensureConsumer(await jetstreamManager(nc));
      // The client reconnects by itself (pulls wait meanwhile); say when it drops and is back.
      const connection = nc;
      void (async () => {
        for await (const status of connection.status()) {
          if (status.type === 'disconnect') watch.lost(`disconnected from ${status.server}`);
          else if (status.type === 'reconnect') watch.ok();
        }
      })();
    },
    async lag() {
      if (nc === undefined) return undefined;
      const info = await (
        await jetstreamManager(nc)
      ).consumers.info(options.stream, options.durable);
      return info.num_pending;
    },
    async run(onMessage, canPull, _readWindow, holdFor = () => () => undefined) {
      if (nc === undefined) throw new Error('open() first');
      if (stopping.signal.aborted) return;
      const consumer = await jetstream(nc).consumers.get(options.stream, options.durable);
      const jsm = await jetstreamManager(nc);
      const deliveries = new NatsDeliveries();
      /**
       * After a failed pull: messages the server sent into it and this process never read count
       * as delivered and come back only after the ack wait, while newer ones would flow at once
       * and be applied first (the lost ones then late, their spans missing). The client gives a
       * pull up on its own clock (heartbeats missed under load) while the server may still send
       * into it until it expires, so first let it expire; then, when the server holds more
       * messages for this consumer than were handed over here, wait out the ack wait: the server
       * redelivers ahead of newer messages, and every run stays in order. When the server holds
       * none (the pull ended at the server with everything it sent read here, the common case of
       * a pull that heartbeats missed while the server was slow), the runs are let go at once,
       * not after a hold sized for the ack wait.
       */
      const lostInFlightMillis =
        FAILED_PULL_EXPIRY_MILLIS +
        options.ackWaitMillis +
        REDELIVERY_DUE_MARGIN_MILLIS +
        LOST_IN_FLIGHT_MARGIN_MILLIS;
      // The holds since the pull failed, let go of once nothing is known to be lost.
      const holds: (() => void)[] = [];
      const letGo = () => {
        for (const release of holds.splice(0)) release();
      };
      const awaitLostInFlight = async (expiredBy: number) => {
        // Held from now, not from the failure: the retries' waits came between.
        holds.push(holdFor(lostInFlightMillis));
        await pause(Math.max(0, expiredBy - Date.now()), stopping.signal);
        const info = await jsm.consumers.info(options.stream, options.durable);
        // Held here or acknowledged in flight: an acknowledgement not yet counted at the server
        // reads as lost, which only waits longer.
        const lost = info.num_ack_pending - deliveries.held;
        if (lost <= 0) {
          letGo();
          return;
        }
        options.report?.(
          `${lost} message(s) sent into a failed pull never arrived; waiting ${(options.ackWaitMillis / 1000).toFixed(1)} s (the ack wait) for their redelivery before newer messages`,
        );
        // Held from now again: the server's answer may have taken long (a stalled server). The
        // holds run out as the redeliveries are due to have arrived (or are let go of by the next
        // check that finds nothing missing, or at the stop).
        holds.push(
          holdFor(
            options.ackWaitMillis + REDELIVERY_DUE_MARGIN_MILLIS + LOST_IN_FLIGHT_MARGIN_MILLIS,
          ),
        );
        await pause(options.ackWaitMillis + REDELIVERY_DUE_MARGIN_MILLIS, stopping.signal);
      };
      if (pendingAtStart > 0) {
        // A previous instance died holding messages. The server redelivers them only after the ack
        // wait, while newer messages flow at once; collect until every pending message has come
        // back (or three ack waits have passed) and hand them over in stream order, so that every
        // run is rebuilt from its first event.
        const recovered = new Map<number, JsMsg>();
        const redelivered = new Set<number>();
        const until = Date.now() + 3 * options.ackWaitMillis + 2000;
        // What is collected is kept alive every third of the ack wait (not after every pull: with
        // a backlog of tens of thousands, that is millions of progress messages, and the wait
        // runs out before the redeliveries are in).
        const keepAliveEvery = Math.max(250, Math.floor(options.ackWaitMillis / 3));
        let keptAliveAt = Date.now();
        while (
          !stopping.signal.aborted &&
          Date.now() < until &&
          redelivered.size < pendingAtStart
        ) {
          try {
            const batch = await consumer.fetch({
              max_messages: options.batchSize,
              expires: PULL_EXPIRES_MILLIS,
            });
            for await (const message of batch) {
              recovered.set(message.seq, message);
              if (message.info.deliveryCount > 1) redelivered.add(message.seq);
            }
          } catch (error) {
            // A pull can fail (missed heartbeats under load, a reconnect): pull again.
            await watch.failed(error, stopping.signal);
          }
          if (Date.now() - keptAliveAt >= keepAliveEvery) {
            keptAliveAt = Date.now();
            for (const message of recovered.values()) message.working();
          }
        }
        for (const message of [...recovered.values()].sort((a, b) => a.seq - b.seq)) {
          onMessage(message.string(), deliveries.of(message));
        }
      }
      // After a failed pull: when it has surely expired at the server, if known (else undefined:
      // from when it is looked into); null while no pull has failed.
      let failedPull: { expiredBy: number | undefined } | null = null;
      while (!stopping.signal.aborted) {
        if (!canPull()) {
          await pause(PULL_PAUSE_MILLIS, stopping.signal, wakeup);
          continue;
        }
        try {
          if (failedPull !== null) {
            await awaitLostInFlight(failedPull.expiredBy ?? Date.now() + FAILED_PULL_EXPIRY_MILLIS);
            failedPull = null;
          }
          // A pull is read to its end (at most a batch, within a second) even when stopping:
          // what the server sent into it and was never read would come back only after the ack
          // wait, behind newer messages; read, it is applied or released at once.
          const sentAt = Date.now();
          const batch = await consumer.fetch({
            max_messages: options.batchSize,
            expires: PULL_EXPIRES_MILLIS,
          });
          let handed = 0;
          let pendingAfter = -1;
          for await (const message of batch) {
            watch.ok();
            handed += 1;
            pendingAfter = message.info.pending;
            onMessage(message.string(), deliveries.of(message));
          }
          // A pull with room left read to the end when it expired at the server, however late its
          // end is read here (a busy process). A full one whose last message left nothing pending
          // did too (a stream fed faster than a pull's size a second fills every pull), by when
          // it was sent.
          if (handed < options.batchSize)
            options.drained?.(Math.min(Date.now(), sentAt + PULL_EXPIRES_MILLIS), sentAt);
          else if (pendingAfter === 0) options.drained?.(sentAt, sentAt);
          else options.behind?.();
        } catch (error) {
          // The server restarted, the connection dropped or heartbeats were missed (the client
          // reconnects; the durable consumer resumes once what was lost is back). The client gives
          // a pull up for missed heartbeats a second after it (or, after a reconnect, its pull
          // again) was sent: by then it has expired at the server. Any other failure (a
          // reconnect may send it late): waited for in full from when it is looked into.
          const quiet = missedHeartbeats(error);
          failedPull = {
            expiredBy: quiet
              ? Date.now() + FAILED_PULL_EXPIRY_MILLIS - PULL_EXPIRES_MILLIS
              : undefined,
          };
          // What the server sent into the failed pull comes back after its expiry and the ack
          // wait (awaitLostInFlight): newer events of its runs, already here, wait for it, through
          // the retry's wait too.
          holds.push(holdFor(watch.retryMillis + lostInFlightMillis));
          // One pull gone quiet is no outage: said if the next fails too (a loss is said anyway).
          await watch.failed(error, stopping.signal, quiet);
        }
      }
      // Stopped (shutting down, or the partition handed over): what it read is settled or handed
      // on now, and a hold of its own would only keep the bridge's other runs waiting.
      letGo();
    },
    wake() {
      wakeup.wake();
    },
    stop() {
      stopping.abort();
    },
    async close() {
      if (nc === undefined) return;
      await nc.flush().catch(() => undefined);
      await nc.drain().catch(() => undefined);
    },
  };
}

/** The client ended a pull for lack of heartbeats (its connection up): the server went quiet. */
function missedHeartbeats(error: unknown): boolean {
  return error instanceof Error && error.message === 'heartbeats missed';
}
