// The OpenTelemetry SDK environment as its specification defines it, through the CLI to real
// receivers: OTLP over gRPC, exporter lists, OTEL_SDK_DISABLED and the trace samplers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { runCli } from '../helpers/cli.js';
import { startOtlpGrpcReceiver } from '../helpers/otlp-grpc-receiver.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';

const dir = mkdtempSync(join(tmpdir(), 'otel-env-'));
const log = join(dir, 'runs.ndjson');
writeFileSync(log, `${createDemoLines(40, Date.UTC(2025, 5, 1, 12)).join('\n')}\n`);
const RUNS = 40;
const roots = (spans: readonly { name: string }[]) =>
  spans.filter((s) => s.name === 'invoke_agent').length;

describe('OpenTelemetry SDK environment', () => {
  it('exports over gRPC with OTEL_EXPORTER_OTLP_PROTOCOL=grpc', async () => {
    const receiver = await startOtlpGrpcReceiver();
    try {
      const result = await runCli(['ingest', log], {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/not supported|falls? back/i);
      expect(roots(receiver.spans)).toBe(RUNS);
      expect(result.stdout).toMatch(/delivered (\d+) of \1 spans/);
      expect(receiver.metrics.flat().some((m) => m.name === 'agent.runs')).toBe(true);
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('uses every exporter of a list: otlp,console', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const result = await runCli(['ingest', log], {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_TRACES_EXPORTER: 'otlp,console',
        OTEL_METRICS_EXPORTER: 'otlp',
      });
      expect(result.code).toBe(0);
      expect(roots(receiver.spans)).toBe(RUNS);
      // The console exporter writes each span, with its trace id, to stdout.
      const traceId = receiver.spans[0]!.traceId;
      expect(result.stdout).toContain(traceId);
    } finally {
      await receiver.close();
    }
  });

  it('sends nothing with OTEL_SDK_DISABLED=true, and owes nothing', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const result = await runCli(['ingest', log], {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SDK_DISABLED: 'true',
      });
      expect(result.code).toBe(0);
      expect(receiver.spans).toEqual([]);
      expect(receiver.metricExports).toBe(0);
      expect(result.stdout).toContain('telemetry disabled (OTEL_SDK_DISABLED=true)');
    } finally {
      await receiver.close();
    }
  });

  it.each([
    ['always_off', undefined, 0, 0],
    ['traceidratio', '0.5', 1, RUNS - 1],
    ['parentbased_always_on', undefined, RUNS, RUNS],
  ] as const)(
    'samples whole runs with OTEL_TRACES_SAMPLER=%s',
    async (sampler, arg, least, most) => {
      const receiver = await startOtlpReceiver();
      try {
        const result = await runCli(['ingest', log], {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_TRACES_SAMPLER: sampler,
          ...(arg === undefined ? {} : { OTEL_TRACES_SAMPLER_ARG: arg }),
        });
        expect(result.code, result.stderr).toBe(0);
        const kept = roots(receiver.spans);
        expect(kept).toBeGreaterThanOrEqual(least);
        expect(kept).toBeLessThanOrEqual(most);
        // A run is kept whole or not at all, and what was dropped is not owed to the collector.
        const traces = new Set(receiver.spans.map((s) => s.traceId));
        expect(traces.size).toBe(kept);
        expect(result.stdout).toContain(
          `delivered ${receiver.spans.length} of ${receiver.spans.length} spans`,
        );
        // Metrics count every run, sampled or not.
        const runs = receiver.metrics
          .filter((m) => m.name === 'agent.runs')
          .flatMap((m) => m.points)
          .reduce((t, p) => t + (p.value as number), 0);
        expect(runs).toBe(RUNS);
      } finally {
        await receiver.close();
      }
    },
  );
});
