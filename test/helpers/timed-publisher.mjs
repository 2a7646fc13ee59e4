// A publisher on a thread of its own: it publishes bursts of messages to NATS JetStream or Redis
// streams and posts, for each, the time (Date.now()) the broker acknowledged it and where it went. Its clock runs on
// while the test's event loop is kept busy, as a runtime's would beside a busy bridge.
import { parentPort, workerData } from 'node:worker_threads';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createClient } from 'redis';

/** workerData: { broker: 'nats' | 'redis', url, targets: string[], bursts: { size, after }[] } */
const { broker, url, targets, bursts } = workerData;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let publish;
let close;
if (broker === 'nats') {
  const nc = await connect({ servers: url });
  const js = jetstream(nc);
  publish = async (target, text) => void (await js.publish(target, text));
  close = () => nc.drain();
} else {
  const client = createClient({ url });
  await client.connect();
  publish = async (target, text) => void (await client.xAdd(target, '*', { event: text }));
  close = async () => client.destroy();
}

let n = 0;
for (const burst of bursts) {
  const texts = Array.from({ length: burst.size }, () => `m${(n += 1)}`);
  await Promise.all(
    texts.map(async (text, k) => {
      const target = (n + k) % targets.length;
      await publish(targets[target], text);
      parentPort.postMessage({ text, ackedAt: Date.now(), target });
    }),
  );
  await sleep(burst.after);
}
await close();
parentPort.postMessage({ done: n });
