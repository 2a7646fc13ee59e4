// A collector that is down or mistyped: said at once with its address, and a bounded wait — one
// budget for the whole outage, not one per export — then exit 3 saying what was not delivered.
import { createServer } from 'node:net';
import fc from 'fast-check';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';

/** A port nothing listens on: taken, then released. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a collector that is not there', () => {
  it('ingest says so at once and exits 3 within 20 s', async () => {
    const port = await deadPort();
    const started = Date.now();
    const result = await runCli(['ingest', 'events/run.ndjson'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    });
    const seconds = (Date.now() - started) / 1000;
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `nothing answers at http://127.0.0.1:${port}/v1/traces (ECONNREFUSED)`,
    );
    expect(result.stderr).toMatch(/not delivered: 70 of 70 spans/);
    console.log(`ingest with nothing listening: exit 3 after ${seconds.toFixed(1)} s`);
    expect(seconds).toBeLessThan(20);
  });

  it('ingest waits no longer than the 6 s it said, with attempts still in flight then', async () => {
    // Each attempt of the exporter's own retries ends within 4 s, and the bridge retries within
    // the outage's budget: attempts are in flight when the 6 s are spent, and are given up then
    // (before, the last of them was waited for, up to 4 s more).
    const port = await deadPort();
    const started = Date.now();
    const result = await runCli(['ingest', 'events/run.ndjson'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: '4000',
    });
    const seconds = (Date.now() - started) / 1000;
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('holding exports up to 6 s in case it starts');
    expect(result.stderr).toMatch(/not delivered: 70 of 70 spans/);
    console.log(
      `ingest with nothing listening, 4 s attempts: exit 3 after ${seconds.toFixed(1)} s`,
    );
    expect(seconds).toBeGreaterThanOrEqual(6);
    expect(seconds).toBeLessThan(6 + 1.5);
  });

  it('ingest waits no longer than its 6 s however the spans are batched and queued', async () => {
    // Many small batches put more exports in flight than the exporter takes at once: those it
    // refuses itself say nothing of the collector (before, they made the outage a full 60 s
    // one), and the outage's budget, shrunk to 6 s once nothing is found listening, ends the
    // wait of exports held since (before, they were waited for to the end of their retries).
    const seed = Date.now() % 1_000_000;
    const [s] = fc.sample(
      fc.noBias(
        fc.record({
          batch: fc.integer({ min: 1, max: 12 }),
          queue: fc.constantFrom(16, 256, 65_536),
          runs: fc.integer({ min: 200, max: 400 }),
        }),
      ),
      { numRuns: 1, seed },
    );
    const { batch, queue, runs } = s!;
    const what = `seed ${seed}: batches of ${batch}, queue ${queue}, ${runs} runs`;
    const port = await deadPort();
    const lines = createDemoLines(runs, Date.UTC(2025, 5, 1, 12));
    const started = Date.now();
    const result = await runCli(
      ['ingest', '-'],
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_TIMEOUT: '4000',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: String(Math.min(batch, queue)),
        OTEL_BSP_MAX_QUEUE_SIZE: String(queue),
      },
      `${lines.join('\n')}\n`,
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(`ingest with nothing listening, ${what}: exit 3 after ${seconds.toFixed(1)} s`);
    expect(result.code, what).toBe(3);
    expect(result.stderr, what).toContain('holding exports up to 6 s in case it starts');
    expect(result.stderr, what).toMatch(/not delivered: (\d+) of \1 spans/);
    expect(seconds, what).toBeGreaterThanOrEqual(6);
    expect(seconds, what).toBeLessThan(6 + 3);
  }, 90_000);

  it('says it before the exporter has given up, and serve stops within --grace-ms', async () => {
    const port = await deadPort();
    const cli = startCli(['serve', '--port', '0', '--grace-ms', '3000'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    await cli.waitForStderr(/listening on (http:\/\/\S+)\/v1\/events/);
    const url = /listening on (http:\/\/\S+)\/v1\/events/.exec(cli.stderr())![1]!;
    // The probe at start, long before the exporter's own retries (about 9 s) end.
    await cli.waitForStderr(/nothing answers at http:\/\/127\.0\.0\.1:\d+\/v1\/traces/, 3000);
    const line = (variant: string, second: string, payload: Record<string, unknown> = {}) =>
      JSON.stringify({
        [variant]: {
          run_id: '5b0c1a2e-1111-4a6b-8c7d-00000000dead',
          ...payload,
          timestamp: `2025-06-01T12:00:${second}Z`,
        },
      });
    const response = await fetch(`${url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: [line('RunStarted', '00'), line('RunCompleted', '01', { finish_reason: 'stop' })].join(
        '\n',
      ),
    });
    expect(response.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const stopping = Date.now();
    const ended = await cli.stop('SIGINT');
    const seconds = (Date.now() - stopping) / 1000;
    console.log(`serve stopped ${seconds.toFixed(1)} s after SIGINT (grace 3 s)`);
    expect(ended.code).toBe(3);
    expect(ended.stderr).toMatch(/not delivered|shutdown took longer than --grace-ms 3000/);
    expect(seconds).toBeLessThan(3 + 2);
  });
});
