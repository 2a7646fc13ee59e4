// The OTLP/gRPC exporters are optional peer dependencies (src/optional-packages.ts): loaded when
// gRPC is chosen, with a message naming what to install when they are not there.
import type { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-grpc';
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { requireOptional } from '../../optional-packages.js';

/** An OTLP/gRPC span exporter (the endpoint from `url`, else from the environment). */
export function grpcSpanExporter(config?: { url: string }): SpanExporter {
  const { OTLPTraceExporter: Exporter } = requireOptional<{
    OTLPTraceExporter: typeof OTLPTraceExporter;
  }>('grpc', '@opentelemetry/exporter-trace-otlp-grpc');
  return new Exporter(config);
}

/** An OTLP/gRPC metric exporter (the endpoint from `url`, else from the environment). */
export function grpcMetricExporter(config?: { url: string }): PushMetricExporter {
  const { OTLPMetricExporter: Exporter } = requireOptional<{
    OTLPMetricExporter: typeof OTLPMetricExporter;
  }>('grpc', '@opentelemetry/exporter-metrics-otlp-grpc');
  return new Exporter(config);
}
