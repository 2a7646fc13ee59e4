// The user-facing stack files: everything docker-compose.yml mounts or builds exists, and the
// collector config wires the pipelines the README describes. (No Docker engine runs here; the
// Compose schema validation and a real-Prometheus run belong to the operations kit.)
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(`${root}/${path}`, 'utf8');

describe('docker-compose.yml', () => {
  const compose = read('docker-compose.yml');

  it('mounts only files and folders that exist', () => {
    const mounts = [...compose.matchAll(/^\s+- \.\/([^:]+):/gm)].map((m) => m[1]!);
    expect(mounts).toEqual(
      expect.arrayContaining([
        'collector-config.yaml',
        'observability/prometheus/prometheus.yml',
        'observability/grafana/provisioning',
      ]),
    );
    for (const mount of mounts) expect(existsSync(`${root}/${mount}`), mount).toBe(true);
    expect(existsSync(`${root}/Dockerfile`)).toBe(true);
  });

  it('runs the collector, Jaeger, Prometheus, Grafana and the bridge', () => {
    for (const service of ['otel-collector', 'jaeger', 'prometheus', 'grafana', 'bridge'])
      expect(compose).toMatch(new RegExp(`^  ${service}:$`, 'm'));
    for (const port of ['4317:4317', '4318:4318', '16686:16686', '9090:9090', '3000:3000'])
      expect(compose).toContain(`'${port}'`);
  });
});

describe('collector-config.yaml', () => {
  const config = read('collector-config.yaml');

  it('receives OTLP on 4317 and 4318 and limits memory before batching', () => {
    expect(config).toContain('endpoint: 0.0.0.0:4317');
    expect(config).toContain('endpoint: 0.0.0.0:4318');
    expect(config.match(/processors: \[memory_limiter, batch\]/g)).toHaveLength(2);
  });

  it('sends traces to Jaeger over OTLP and metrics to the Prometheus exporter', () => {
    expect(config).toMatch(
      /traces:\n\s+receivers: \[otlp\]\n\s+processors: \[memory_limiter, batch\]\n\s+exporters: \[otlp\/jaeger\]/,
    );
    expect(config).toMatch(
      /metrics:\n\s+receivers: \[otlp\]\n\s+processors: \[memory_limiter, batch\]\n\s+exporters: \[prometheus\]/,
    );
    expect(read('observability/prometheus/prometheus.yml')).toContain(
      "targets: ['otel-collector:8889']",
    );
  });
});
