// Checkpoints larger than a NATS message may carry (the server's max_payload, 1 MiB here), on the
// real JetStream of this machine: a 10 000-event run with content capture on, and generated
// checkpoints of sizes around the chunk size, each read back as it was written; a smaller save
// after a chunked one replaces it and its chunks go; a chunk lost is said, not read as a mix.
import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { keyOfRun } from '../../src/checkpoints/checkpoint-store.js';
import { compactEvents } from '../../src/checkpoints/compact-events.js';
import { createNatsCheckpointStore } from '../../src/checkpoints/nats-checkpoint-store.js';
import { encodeCheckpoint } from '../../src/checkpoints/run-checkpoint.js';
import type { RunCheckpoint } from '../../src/checkpoints/run-checkpoint.js';
import type { AgentEvent } from '../../src/events/agent-event.js';
import { NATS_URL } from '../helpers/brokers.js';
import { createHarness } from '../helpers/harness.js';

const RUN = '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d0e';
const buckets: string[] = [];

afterAll(async () => {
  const nc = await connect({ servers: NATS_URL });
  const jsm = await jetstreamManager(nc);
  for (const bucket of buckets) await jsm.streams.delete(`KV_${bucket}`).catch(() => undefined);
  await nc.drain();
});

async function store(chunkBytes?: number) {
  const bucket = `aob-cp-${randomUUID().slice(0, 8)}`;
  buckets.push(bucket);
  const connection = await connect({ servers: NATS_URL });
  const checkpoints = await createNatsCheckpointStore({
    connection,
    bucket,
    ttlMillis: 60_000,
    ...(chunkBytes === undefined ? {} : { chunkBytes }),
  });
  const kv = await new Kvm(jetstream(connection)).open(bucket);
  const keys = async () => {
    const all: string[] = [];
    for await (const key of await kv.keys()) all.push(key);
    return all.sort();
  };
  return { checkpoints, kv, keys, connection };
}

/** A behest run of `iterations` × 9 events, each tool call's arguments and output 400 characters. */
function longRunLines(iterations: number): string[] {
  let ms = Date.UTC(2025, 5, 1, 12);
  const at = () => new Date((ms += 7)).toISOString();
  const event = (variant: string, payload: Record<string, unknown>) =>
    JSON.stringify({ [variant]: { run_id: RUN, ...payload, timestamp: at() } });
  const text = (i: number, what: string) => `${what} ${i} `.repeat(40).slice(0, 400);
  const lines = [event('RunStarted', { provider: 'openai', model: 'gpt-4o-mini' })];
  for (let i = 1; i <= iterations; i += 1) {
    const call = `call_${i}`;
    lines.push(
      event('ModelStarted', { provider: 'openai', model: 'gpt-4o-mini', iteration: i }),
      event('TextDelta', { delta: text(i, 'thinking') }),
      event('ToolCallStarted', { call_id: call, tool_name: 'search' }),
      event('ToolCallCompleted', {
        call: { id: call, name: 'search', arguments: { query: text(i, 'query') } },
      }),
      event('UsageRecorded', {
        usage: { input_tokens: 100, output_tokens: 10, total_tokens: 110 },
      }),
      event('AssistantMessageCommitted', { message_id: `m-${i}` }),
      event('ToolExecutionStarted', { call_id: call, tool_name: 'search' }),
      event('ToolExecutionFinished', {
        call_id: call,
        tool_name: 'search',
        result: { Success: { output: { found: text(i, 'result') } } },
        duration_ms: 5,
      }),
      event('ToolMessageCommitted', { message_id: `t-${i}` }),
    );
  }
  return lines;
}

/** The events the bridge accepts of a run whose model call streams `deltas`. */
function runOfDeltas(runId: string, deltas: readonly string[]): AgentEvent[] {
  const events: AgentEvent[] = [];
  const h = createHarness({ captureContent: true }, { onAccepted: (event) => events.push(event) });
  let ms = Date.UTC(2025, 5, 1, 12);
  const event = (variant: string, payload: Record<string, unknown> = {}) =>
    JSON.stringify({
      [variant]: { run_id: runId, ...payload, timestamp: new Date((ms += 5)).toISOString() },
    });
  h.feed(
    [
      event('RunStarted', { provider: 'openai', model: 'gpt-4o-mini' }),
      event('ModelStarted', { provider: 'openai', model: 'gpt-4o-mini', iteration: 1 }),
      ...deltas.map((delta) => event('TextDelta', { delta })),
    ].join('\n'),
  );
  return events;
}

describe('NATS checkpoints of any size', () => {
  it('stores the checkpoint of a 10 000-event run with content capture on, over max_payload, and reads it back whole', async () => {
    const events: AgentEvent[] = [];
    const h = createHarness(
      { captureContent: true },
      { onAccepted: (event) => events.push(event) },
    );
    h.feed(longRunLines(1130).join('\n'));
    expect(events.length).toBeGreaterThanOrEqual(10_000);
    const checkpoint: RunCheckpoint = {
      runId: RUN,
      dialect: 'behest',
      finished: false,
      events: compactEvents(events, { capture: true, maxTextChars: 8192 }),
      metricWrites: 4444,
    };
    const { checkpoints, keys, connection } = await store();
    const size = Buffer.byteLength(encodeCheckpoint(checkpoint));
    expect(size).toBeGreaterThan(connection.info!.max_payload);
    console.log(`checkpoint of ${events.length} events: ${size} bytes`);
    await checkpoints.save('p3', checkpoint);
    const loaded = await checkpoints.load('p3');
    expect(loaded.unreadable).toEqual([]);
    expect(loaded.checkpoints).toEqual([checkpoint]);
    const chunkKeys = (await keys()).filter((k) => k.split('.').length === 4);
    expect(chunkKeys.length).toBe(Math.ceil(size / (connection.info!.max_payload - 16 * 1024)));
    // The run ends: its small `finished` marker replaces it, and the chunks go.
    const finished: RunCheckpoint = { ...checkpoint, finished: true, events: [], metricWrites: 0 };
    await checkpoints.save('p3', finished);
    expect((await checkpoints.load('p3')).checkpoints).toEqual([finished]);
    expect(await keys()).toEqual([`p3.${keyOfRun(RUN)}`]);
    await checkpoints.close();
  }, 60_000);

  it('reads back generated checkpoints of every size around the chunk size, each save replacing the last', async () => {
    const chunk = 2048;
    const { checkpoints, keys } = await store(chunk);
    const text = fc.string({ unit: 'grapheme', maxLength: 1500 });
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 0, maxLength: 8 }), async (deltas) => {
        const checkpoint: RunCheckpoint = {
          runId: RUN,
          dialect: 'behest',
          finished: false,
          events: runOfDeltas(RUN, deltas),
          metricWrites: deltas.length,
        };
        await checkpoints.save('p0', checkpoint);
        const loaded = await checkpoints.load('p0');
        expect(loaded.unreadable).toEqual([]);
        expect(loaded.checkpoints).toEqual([checkpoint]);
        // Only the last save's chunks are left.
        const bytes = Buffer.byteLength(encodeCheckpoint(checkpoint));
        const chunks = (await keys()).filter((k) => k.split('.').length === 4).length;
        expect(chunks).toBe(bytes <= chunk ? 0 : Math.ceil(bytes / chunk));
      }),
      { numRuns: 60 },
    );
    await checkpoints.close();
  }, 60_000);

  it('says a chunked checkpoint with a chunk missing is unreadable, and reads the others', async () => {
    const { checkpoints, kv, keys } = await store(1024);
    const big = (runId: string): RunCheckpoint => ({
      runId,
      dialect: 'behest',
      finished: false,
      events: runOfDeltas(runId, ['x'.repeat(5000)]),
      metricWrites: 1,
    });
    const other = `${RUN.slice(0, -1)}f`;
    await checkpoints.save('p1', big(RUN));
    await checkpoints.save('p1', big(other));
    const lost = (await keys()).find(
      (k) => k.startsWith(`p1.${keyOfRun(RUN)}.`) && k.endsWith('.2'),
    );
    expect(lost).toBeDefined();
    await kv.delete(lost!);
    const loaded = await checkpoints.load('p1');
    expect(loaded.checkpoints.map((c) => c.runId)).toEqual([other]);
    expect(loaded.unreadable.map((u) => u.key)).toEqual([`p1.${keyOfRun(RUN)}`]);
    expect(loaded.unreadable[0]?.problem).toMatch(
      /^chunked checkpoint: chunk 3 of \d+ is missing$/,
    );
    await checkpoints.close();
  }, 30_000);
});
