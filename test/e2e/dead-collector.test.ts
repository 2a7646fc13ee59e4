// A collector that is down or mistyped: said at once with its address, and a bounded wait — one
// budget for the whole outage, not one per export — then exit 3 saying what was not delivered.
import { createServer } from 'node:net';
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
