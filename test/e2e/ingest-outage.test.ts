// ingest never exits 0 with data the collector did not take: it holds each export through an
// outage (AGENT_OTEL_BRIDGE_EXPORT_HOLD_MS, 60 s by default), then says what was not delivered and
// exits 3. A missing input file is a usage error before anything is read.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { runCli } from '../helpers/cli.js';
import { freePort } from '../helpers/free-port.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';

const dir = mkdtempSync(join(tmpdir(), 'ingest-outage-'));
const log = join(dir, 'runs.ndjson');
writeFileSync(log, `${createDemoLines(40, Date.UTC(2025, 5, 1, 12)).join('\n')}\n`);

describe('ingest through a collector outage', () => {
  const receivers: OtlpReceiver[] = [];
  afterAll(async () => {
    for (const r of receivers) await r.close();
  });

  it('holds through a 3 s refusal and delivers every span, then says so', async () => {
    const baseline = await startOtlpReceiver();
    receivers.push(baseline);
    const healthy = await runCli(['ingest', log], { OTEL_EXPORTER_OTLP_ENDPOINT: baseline.url });
    expect(healthy.code).toBe(0);
    const made = baseline.spans.length;
    expect(made).toBeGreaterThan(100);

    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    receiver.refusing = { status: 503 };
    setTimeout(() => (receiver.refusing = undefined), 3000);
    const result = await runCli(['ingest', log], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(result.code).toBe(0);
    expect(receiver.refused).toBeGreaterThan(0);
    expect(new Set(receiver.spans.map((s) => s.spanId)).size).toBe(made);
    expect(result.stdout).toContain(`delivered ${made} of ${made} spans`);
  }, 60_000);

  it('exits 3 and says how much was not delivered when the collector stays down', async () => {
    const port = await freePort();
    const result = await runCli(['ingest', log], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      AGENT_OTEL_BRIDGE_EXPORT_HOLD_MS: '1500',
      OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/not delivered: (\d+) of \1 spans, \d+ metric export\(s\)/);
    expect(result.stdout).toMatch(/delivered 0 of \d+ spans/);
  }, 60_000);

  it('owes no spans when traces are not exported at all', async () => {
    const port = await freePort();
    const result = await runCli(['ingest', log], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('not delivered');
  });

  it('refuses a missing input file before reading any', async () => {
    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    const result = await runCli(['ingest', log, join(dir, 'missing.ndjson')], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`cannot read ${join(dir, 'missing.ndjson')}: no such file`);
    expect(result.stderr).not.toContain('Unhandled');
    expect(receiver.spans).toHaveLength(0);
  });
});
