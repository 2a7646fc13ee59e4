import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import type { OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base/node-http';
import {
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
} from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { encodeTraceRequest } from './otlp-trace-encoder.js';

/** The exporter's component type in the SDK's own exporter metrics (none are recorded here). */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

/**
 * OTLP/HTTP protobuf span exporter: the SDK's HTTP transport (endpoint, headers, timeout,
 * compression and retries from the same `OTEL_EXPORTER_OTLP_*` settings), with the request
 * encoded in one pass by `encodeTraceRequest` (the same bytes as the SDK's own serializer).
 */
export class OtlpProtoTraceExporter
  extends OTLPExporterBase<ReadableSpan[]>
  implements SpanExporter
{
  constructor(config: OTLPExporterNodeConfigBase = {}) {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions(config, 'TRACES', 'v1/traces', {
          'Content-Type': 'application/x-protobuf',
        }),
        {
          serializeRequest: (spans: ReadableSpan[]) => encodeTraceRequest(spans),
          deserializeResponse: (data: Uint8Array) =>
            ProtobufTraceSerializer.deserializeResponse(data),
        },
        COMPONENT_TYPE,
        TraceExporterMetricsHelper,
        undefined,
      ),
    );
  }
}
