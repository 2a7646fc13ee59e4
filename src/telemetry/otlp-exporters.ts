import { OTLPMetricExporter as OTLPMetricExporterJson } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as OTLPMetricExporterProto } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as OTLPTraceExporterJson } from '@opentelemetry/exporter-trace-otlp-http';
import { ConsoleMetricExporter } from '@opentelemetry/sdk-metrics';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { Env } from '../sink-options.js';
import { resolveExporterNames, resolveProtocol } from './exporter-choice.js';
import { grpcMetricExporter, grpcSpanExporter } from './export/grpc-exporters.js';
import { OtlpProtoTraceExporter } from './otlp/otlp-proto-trace-exporter.js';

/** The OTLP span exporter of the protocol the environment names. */
export function otlpTraceExporter(env: Env): SpanExporter {
  const protocol = resolveProtocol(env, 'TRACES');
  if (protocol === 'grpc') return grpcSpanExporter();
  return protocol === 'http/json' ? new OTLPTraceExporterJson() : new OtlpProtoTraceExporter();
}

/** The metric exporters the environment names (a list: every one gets a reader). */
export function chooseMetricExporters(env: Env): PushMetricExporter[] {
  return resolveExporterNames(env, 'OTEL_METRICS_EXPORTER').map((name) => {
    if (name === 'console') return new ConsoleMetricExporter();
    const protocol = resolveProtocol(env, 'METRICS');
    if (protocol === 'grpc') return grpcMetricExporter();
    return protocol === 'http/json' ? new OTLPMetricExporterJson() : new OTLPMetricExporterProto();
  });
}
