// A real OTLP/gRPC receiver (grpc-js, the collector's service paths) that decodes what arrives
// with the same protobuf reader as the HTTP receiver. The request and response messages are
// passed as raw bytes: an empty Export*ServiceResponse is zero bytes.
import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { decodeMetricsRequest, decodeTraceRequest } from './otlp-protobuf.js';
import type { OtlpMetric, OtlpSpan } from './otlp-protobuf.js';

export interface OtlpGrpcReceiver {
  readonly url: string;
  readonly spans: OtlpSpan[];
  readonly metrics: OtlpMetric[][];
  close(): Promise<void>;
}

const raw = {
  requestStream: false,
  responseStream: false,
  requestSerialize: (b: Buffer) => b,
  requestDeserialize: (b: Buffer) => b,
  responseSerialize: (b: Buffer) => b,
  responseDeserialize: (b: Buffer) => b,
} as const;

export async function startOtlpGrpcReceiver(): Promise<OtlpGrpcReceiver> {
  const spans: OtlpSpan[] = [];
  const metrics: OtlpMetric[][] = [];
  const server = new Server();
  const handler =
    (take: (body: Buffer) => void) =>
    (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
      take(call.request);
      callback(null, Buffer.alloc(0));
    };
  server.addService(
    { Export: { ...raw, path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export' } },
    {
      Export: handler((b) => spans.push(...decodeTraceRequest(b).spans)),
    },
  );
  server.addService(
    {
      Export: { ...raw, path: '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export' },
    },
    {
      Export: handler((b) => metrics.push(decodeMetricsRequest(b))),
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error === null ? resolve(bound) : reject(error),
    ),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
