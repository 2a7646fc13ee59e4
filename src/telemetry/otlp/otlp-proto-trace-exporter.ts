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
import type { MeasuredSpanExporter } from '../export/size-bounded-span-exporter.js';

/** The exporter's component type in the SDK's own exporter metrics (none are recorded here). */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

/**
 * OTLP/HTTP protobuf span exporter: the SDK's HTTP transport (endpoint, headers, timeout,
 * compression and retries from the same `OTEL_EXPORTER_OTLP_*` settings), with the request
 * encoded in one pass by `encodeTraceRequest` (the same bytes as the SDK's own serializer).
 */
export class OtlpProtoTraceExporter
  extends OTLPExporterBase<ReadableSpan[]>
  implements SpanExporter, MeasuredSpanExporter
{
  /** Requests encoded by `measure`, sent as they are by the export of the same batch. */
  private readonly measured: WeakMap<ReadableSpan[], Uint8Array>;

  constructor(config: OTLPExporterNodeConfigBase = {}) {
    const measured = new WeakMap<ReadableSpan[], Uint8Array>();
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions(config, 'TRACES', 'v1/traces', {
          'Content-Type': 'application/x-protobuf',
        }),
        {
          serializeRequest: (spans: ReadableSpan[]) => {
            const encoded = measured.get(spans);
            if (encoded === undefined) return encodeTraceRequest(spans);
            measured.delete(spans);
            return encoded;
          },
          deserializeResponse: (data: Uint8Array) =>
            ProtobufTraceSerializer.deserializeResponse(data),
        },
        COMPONENT_TYPE,
        TraceExporterMetricsHelper,
        undefined,
      ),
    );
    this.measured = measured;
  }

  /** The bytes of the request `spans` make, its encoding kept for their export within `keepWithin`. */
  measure(spans: ReadableSpan[], keepWithin: number): number {
    const encoded = encodeTraceRequest(spans);
    if (encoded.length <= keepWithin) this.measured.set(spans, encoded);
    return encoded.length;
  }
}
