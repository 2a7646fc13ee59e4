// More OTLP destinations beside the one the standard environment names (a tracing backend and an
// LLM-observability product side by side). Each has its own endpoint, protocol and headers, and
// gets its own exporters, batch processor, metric reader, outage hold and delivery accounting, so
// one that fails never delays or loses what the others receive.
//
// AGENT_OTEL_BRIDGE_DESTINATIONS: a JSON array, or the path of a JSON file holding one:
//   [{ "name": "langfuse", "endpoint": "https://cloud.example/api/public/otel",
//      "protocol": "http/protobuf", "headers": { "Authorization": "Basic …" },
//      "traces": true, "metrics": false }]
import { readFileSync } from 'node:fs';
import { OTLPMetricExporter as OTLPMetricExporterJson } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as OTLPMetricExporterProto } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as OTLPTraceExporterJson } from '@opentelemetry/exporter-trace-otlp-http';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { ConfigError } from '../config.js';
import type { Env } from '../sink-options.js';
import type { OtlpProtocol } from './exporter-choice.js';
import { OtlpProtoTraceExporter } from './otlp/otlp-proto-trace-exporter.js';
import { grpcMetricExporter, grpcSpanExporter } from './export/grpc-exporters.js';

export interface Destination {
  /** How summaries and errors name it: letters, digits, `._-`. */
  readonly name: string;
  /** The OTLP base URL; `/v1/traces` and `/v1/metrics` are appended (not for grpc). */
  readonly endpoint: string;
  readonly protocol: OtlpProtocol;
  readonly headers: Readonly<Record<string, string>>;
  readonly traces: boolean;
  readonly metrics: boolean;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json', 'grpc'];
const FIELDS = new Set(['name', 'endpoint', 'protocol', 'headers', 'traces', 'metrics']);

/** The destinations `AGENT_OTEL_BRIDGE_DESTINATIONS` lists (none when unset). Throws `ConfigError`. */
export function destinationsFromEnv(env: Env): Destination[] {
  const raw = env['AGENT_OTEL_BRIDGE_DESTINATIONS']?.trim();
  if (raw === undefined || raw === '') return [];
  let text = raw;
  let where = 'AGENT_OTEL_BRIDGE_DESTINATIONS';
  if (!raw.startsWith('[')) {
    where = `AGENT_OTEL_BRIDGE_DESTINATIONS file ${raw}`;
    try {
      text = readFileSync(raw, 'utf8');
    } catch (error) {
      throw new ConfigError(
        `${where}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${where}: not JSON (${(error as Error).message})`);
  }
  return checkDestinations(value, where);
}

/** Checks a parsed list of destinations, naming the field at fault. */
export function checkDestinations(value: unknown, where: string): Destination[] {
  const fail = (path: string, problem: string): never => {
    throw new ConfigError(`${where}: ${path}: ${problem}`);
  };
  if (!Array.isArray(value)) return fail('(top level)', 'expected an array of destinations');
  const names = new Set<string>();
  return value.map((entry: unknown, i) => {
    const at = `[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      return fail(at, 'expected an object');
    const d = entry as Record<string, unknown>;
    for (const key of Object.keys(d)) if (!FIELDS.has(key)) fail(`${at}.${key}`, 'unknown field');
    const name = d['name'];
    if (typeof name !== 'string' || !NAME.test(name))
      fail(`${at}.name`, 'expected a name of letters, digits and ._- (at most 64)');
    if (names.has(name as string)) fail(`${at}.name`, `${String(name)} is named twice`);
    names.add(name as string);
    const endpoint = d['endpoint'];
    if (typeof endpoint !== 'string' || !/^https?:\/\/[^\s]+$/.test(endpoint))
      fail(`${at}.endpoint`, 'expected an http:// or https:// URL');
    const protocol = d['protocol'] ?? 'http/protobuf';
    if (!PROTOCOLS.includes(protocol as OtlpProtocol))
      fail(`${at}.protocol`, `expected one of ${PROTOCOLS.join(', ')}`);
    const headers = d['headers'] ?? {};
    if (
      typeof headers !== 'object' ||
      headers === null ||
      Array.isArray(headers) ||
      !Object.values(headers).every((v) => typeof v === 'string')
    )
      fail(`${at}.headers`, 'expected an object of string values');
    if (protocol === 'grpc' && Object.keys(headers).length > 0)
      fail(`${at}.headers`, 'headers are sent over http/protobuf and http/json only');
    for (const signal of ['traces', 'metrics'] as const)
      if (d[signal] !== undefined && typeof d[signal] !== 'boolean')
        fail(`${at}.${signal}`, 'expected true or false');
    return {
      name: name as string,
      endpoint: (endpoint as string).replace(/\/+$/, ''),
      protocol: protocol as OtlpProtocol,
      headers: headers as Record<string, string>,
      traces: d['traces'] !== false,
      metrics: d['metrics'] !== false,
    };
  });
}

/** The destination's traces exporter. */
export function destinationSpanExporter(d: Destination): SpanExporter {
  if (d.protocol === 'grpc') return grpcSpanExporter({ url: d.endpoint });
  const config = { url: `${d.endpoint}/v1/traces`, headers: { ...d.headers } };
  return d.protocol === 'http/json'
    ? new OTLPTraceExporterJson(config)
    : new OtlpProtoTraceExporter(config);
}

/** The destination's metrics exporter (cumulative, as the environment's default). */
export function destinationMetricExporter(d: Destination): PushMetricExporter {
  if (d.protocol === 'grpc') return grpcMetricExporter({ url: d.endpoint });
  const config = { url: `${d.endpoint}/v1/metrics`, headers: { ...d.headers } };
  return d.protocol === 'http/json'
    ? new OTLPMetricExporterJson(config)
    : new OTLPMetricExporterProto(config);
}

/** An environment naming only this destination, for the collector probe. */
export function destinationProbeEnv(d: Destination): Env {
  return {
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:
      d.protocol === 'grpc' ? d.endpoint : `${d.endpoint}/v1/traces`,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: d.protocol,
  };
}
