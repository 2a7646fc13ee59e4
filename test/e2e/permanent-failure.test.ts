// A collector that refuses a batch with a 4xx other than 408 and 429 will refuse it however often
// it is sent (a malformed or unauthorized request): the bridge drops it at once, as the
// Collector's own retry stage does, instead of sending it again for the whole export hold.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'permanent-failure-'));
const log = join(dir, 'runs.ndjson');
writeFileSync(log, `${createDemoLines(20, Date.UTC(2025, 5, 1, 12)).join('\n')}\n`);

/** A collector answering every request with `status`; counts how often each body came. */
async function refusingCollector(status: number) {
  const seen = new Map<string, number>();
  const server = createServer((req, res) => {
    const hash = createHash('sha256');
    req.on('data', (chunk: Buffer) => hash.update(chunk));
    req.on('end', () => {
      const key = `${req.url ?? ''} ${hash.digest('hex')}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('permanent export failures', () => {
  for (const status of [400, 401, 413]) {
    it(`sends a batch refused with ${status} once, and says it was not delivered`, async () => {
      const collector = await refusingCollector(status);
      try {
        const result = await runCli(['ingest', log], {
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          AGENT_OTEL_BRIDGE_EXPORT_HOLD_MS: '600000',
        });
        expect(result.code).toBe(3);
        expect(result.stderr).toMatch(/not delivered: \d+ of \d+ spans/);
        const traces = [...collector.seen].filter(([key]) => key.startsWith('/v1/traces'));
        expect(traces.length).toBeGreaterThan(0);
        expect(traces.filter(([, times]) => times > 1)).toEqual([]);
      } finally {
        await collector.close();
      }
    });
  }

  it('still holds a batch refused with 429 or 503 until the collector takes it', async () => {
    let refusals = 3;
    const bodies: number[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/v1/traces' && refusals > 0) {
          refusals -= 1;
          res.writeHead(refusals % 2 === 0 ? 429 : 503, { 'retry-after': '0' }).end();
          return;
        }
        if (req.url === '/v1/traces') bodies.push(1);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await runCli(['ingest', log], {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      });
      expect(result.stderr).not.toMatch(/not delivered/);
      expect(result.code).toBe(0);
      expect(refusals).toBe(0);
      expect(bodies.length).toBeGreaterThan(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
