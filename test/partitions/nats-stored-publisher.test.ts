// The router's publisher of copies, on the real NATS server of this machine: every message is told
// exactly once whether its stream stored it, a second copy of an id is stored once, and what no
// stream takes, what a stream refuses, what nobody answers and what is still waiting at close are
// each told so, by name.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NatsStoredPublisher } from '../../src/partitions/nats-stored-publisher.js';
import { NATS_URL } from '../helpers/brokers.js';

describe('NatsStoredPublisher', () => {
  let nc: NatsConnection;
  const streams: string[] = [];
  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
  });
  afterAll(async () => {
    const jsm = await jetstreamManager(nc);
    for (const stream of streams) await jsm.streams.delete(stream).catch(() => undefined);
    await nc.drain();
  });

  async function stream(config: { max_msgs?: number; discard?: 'new' | 'old' } = {}) {
    const id = randomUUID().slice(0, 8);
    const name = `AOB_STORED_${id}`;
    streams.push(name);
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name, subjects: [`stored.${id}.*`], ...config });
    return { name, subject: (p: number) => `stored.${id}.${p}`, jsm };
  }

  /** Publishes each, in order, and resolves with what each was told, once all were told. */
  async function publishAll(
    publisher: NatsStoredPublisher,
    messages: readonly { subject: string; text: string; id: string }[],
  ) {
    const told: (Error | undefined | 'untold')[] = messages.map(() => 'untold');
    const times = messages.map(() => 0);
    for (const [i, m] of messages.entries())
      publisher.publish(m.subject, m.text, m.id, (error) => {
        told[i] = error;
        times[i] = (times[i] ?? 0) + 1;
      });
    await publisher.idle();
    return { told, times };
  }

  it('tells each message once, stores each id once, over random sequences of copies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ partition: fc.nat(3), id: fc.nat(40), text: fc.string() }), {
          minLength: 1,
          maxLength: 300,
        }),
        async (drawn) => {
          const { name, subject, jsm } = await stream();
          const publisher = new NatsStoredPublisher(nc);
          try {
            const messages = drawn.map((d) => ({
              subject: subject(d.partition),
              text: d.text,
              id: `copy-${d.id}`,
            }));
            const { told, times } = await publishAll(publisher, messages);
            expect(times.every((t) => t === 1)).toBe(true);
            expect(told.every((t) => t === undefined)).toBe(true);
            expect(publisher.size).toBe(0);
            const info = await jsm.streams.info(name);
            expect(info.state.messages).toBe(new Set(drawn.map((d) => d.id)).size);
          } finally {
            publisher.close();
            await jsm.streams.delete(name);
          }
        },
      ),
      { numRuns: 15 },
    );
  });

  it('names a subject no stream takes', async () => {
    const publisher = new NatsStoredPublisher(nc);
    const subject = `unstored.${randomUUID().slice(0, 8)}`;
    const { told } = await publishAll(publisher, [{ subject, text: 'x', id: 'a' }]);
    publisher.close();
    expect(String(told[0])).toContain(`no stream takes subject ${subject}`);
  });

  it("tells a stream's refusal with its description", async () => {
    const { subject } = await stream({ max_msgs: 1, discard: 'new' });
    const publisher = new NatsStoredPublisher(nc);
    const { told } = await publishAll(publisher, [
      { subject: subject(0), text: 'first', id: 'a' },
      { subject: subject(0), text: 'second', id: 'b' },
    ]);
    publisher.close();
    expect(told[0]).toBeUndefined();
    expect(String(told[1])).toMatch(/maximum messages exceeded.*err_code 10077/);
  });

  it('times out a message nobody answers, and tells what waits at close', async () => {
    // A plain subscriber takes the subject (so the server reports no missing responder) and
    // never answers.
    const subject = `silent.${randomUUID().slice(0, 8)}`;
    const silent = nc.subscribe(subject);
    const publisher = new NatsStoredPublisher(nc, 200);
    const { told } = await publishAll(publisher, [{ subject, text: 'x', id: 'a' }]);
    expect(String(told[0])).toContain('no answer from the stream within 200 ms');
    let atClose: Error | undefined;
    publisher.publish(subject, 'y', 'b', (error) => (atClose = error));
    expect(publisher.size).toBe(1);
    publisher.close();
    expect(String(atClose)).toContain('closed before its stream answered');
    expect(publisher.size).toBe(0);
    silent.unsubscribe();
  });
});
