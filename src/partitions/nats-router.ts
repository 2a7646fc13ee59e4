import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JsMsg } from '@nats-io/jetstream';
import { connectNats } from '../sources/nats-connection.js';
import { ConnectionWatch, waitUntilExists } from '../sources/broker-source.js';
import { partitionOfEvent } from './partition-of.js';
import type { Router, RouterOptions } from './router.js';

/**
 * Routes a JetStream subject to its partitions: each message is republished to
 * `<subject>.<p>` with `Nats-Msg-Id: <stream>:<sequence>` (the partition stream drops a second
 * copy within its duplicate window), and acknowledged on the source only after the partition
 * stream acknowledged it. Any number of routers share the durable consumer.
 */
export function createNatsRouter(options: RouterOptions): Router {
  const stopping = new AbortController();
  let routed = 0;
  return {
    get routed() {
      return routed;
    },
    async run() {
      const nc = await connectNats(options.url, 'agent-otel-bridge-router');
      try {
        const jsm = await jetstreamManager(nc);
        // Started before the runtime created its stream: wait for it (stop() ends the wait).
        const found = await waitUntilExists(
          () => jsm.streams.info(options.stream).then(() => true),
          stopping.signal,
          () =>
            options.report(
              `JetStream stream ${options.stream} not found at ${options.url} yet: waiting for it to be created (nothing published yet?)`,
            ),
        );
        if (!found) return;
        await jsm.consumers.info(options.stream, options.group).catch(() =>
          jsm.consumers.add(options.stream, {
            durable_name: options.group,
            ack_policy: AckPolicy.Explicit,
            filter_subject: options.source,
            ack_wait: options.ackWaitMillis * 1_000_000,
            max_ack_pending: 20_000,
          }),
        );
        const js = jetstream(nc);
        const consumer = await js.consumers.get(options.stream, options.group);
        const watch = new ConnectionWatch('NATS JetStream', options.report);
        while (!stopping.signal.aborted) {
          const messages: JsMsg[] = [];
          let pullError: unknown;
          try {
            const batch = await consumer.fetch({ max_messages: options.batchSize, expires: 1000 });
            for await (const message of batch) messages.push(message);
            watch.ok();
          } catch (error) {
            // What arrived before the pull failed is routed all the same (left unrouted, it would
            // come back only after the ack wait, behind newer events of its runs).
            pullError = error;
          }
          try {
            // Published in order over one connection; each acknowledged once its copy is stored.
            await Promise.all(
              messages.map(async (message) => {
                const p = partitionOfEvent(message.string(), options.partitions);
                await js.publish(`${options.source}.${p}`, message.data, {
                  msgID: `${options.stream}:${message.seq}`,
                });
                message.ack();
                routed += 1;
              }),
            );
          } catch (error) {
            pullError ??= error;
          }
          if (pullError !== undefined) await watch.failed(pullError, stopping.signal);
        }
      } finally {
        await nc.drain().catch(() => undefined);
      }
    },
    stop() {
      stopping.abort();
    },
  };
}
