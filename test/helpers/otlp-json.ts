// OTLP/JSON normalization into the same shape as otlp-protobuf.ts.
import type { OtlpMetric, OtlpSpan } from './otlp-protobuf.js';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument */

function anyValue(v: any): unknown {
  if (v === undefined || v === null) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(anyValue);
  return undefined;
}

function attributes(list: any[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value)]));
}

const nanos = (v: unknown) => BigInt(String(v)).toString();

export function normalizeJsonSpans(body: any): {
  spans: OtlpSpan[];
  resources: Record<string, unknown>[];
} {
  const spans: OtlpSpan[] = [];
  const resources: Record<string, unknown>[] = [];
  for (const rs of body.resourceSpans ?? []) {
    resources.push(attributes(rs.resource?.attributes));
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        spans.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: Number(s.kind ?? 0),
          startTimeUnixNano: nanos(s.startTimeUnixNano),
          endTimeUnixNano: nanos(s.endTimeUnixNano),
          attributes: attributes(s.attributes),
          events: (s.events ?? []).map((e: any) => ({
            name: e.name,
            timeUnixNano: nanos(e.timeUnixNano),
            attributes: attributes(e.attributes),
          })),
          status: { code: Number(s.status?.code ?? 0), message: s.status?.message ?? '' },
        });
      }
    }
  }
  return { spans, resources };
}

export function normalizeJsonMetrics(body: any): OtlpMetric[] {
  const out: OtlpMetric[] = [];
  for (const rm of body.resourceMetrics ?? []) {
    const resource = attributes(rm.resource?.attributes);
    for (const sm of rm.scopeMetrics ?? []) {
      for (const m of sm.metrics ?? []) {
        const points = m.sum
          ? m.sum.dataPoints.map((p: any) => ({
              attributes: attributes(p.attributes),
              value: Number(p.asDouble ?? p.asInt ?? 0),
            }))
          : m.histogram
            ? m.histogram.dataPoints.map((p: any) => ({
                attributes: attributes(p.attributes),
                value: {
                  count: Number(p.count),
                  sum: Number(p.sum ?? 0),
                  bucketCounts: (p.bucketCounts ?? []).map(Number),
                  explicitBounds: (p.explicitBounds ?? []).map(Number),
                },
              }))
            : [];
        out.push({
          resource,
          name: m.name,
          unit: m.unit ?? '',
          monotonic: m.sum?.isMonotonic === true,
          points,
        });
      }
    }
  }
  return out;
}
