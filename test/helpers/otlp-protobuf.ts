// OTLP protobuf (opentelemetry-proto v1) decoding of the fields the tests assert on.
import {
  bytesOf,
  doubleOf,
  fixed64Of,
  packed64,
  readFields,
  stringOf,
  varintOf,
} from '../../src/dialects/crabtalk/protobuf-wire.js';
import type { Field } from '../../src/dialects/crabtalk/protobuf-wire.js';

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  events: { name: string; timeUnixNano: string; attributes: Record<string, unknown> }[];
  status: { code: number; message: string };
}

export interface OtlpHistogram {
  count: number;
  sum: number;
  bucketCounts: number[];
  explicitBounds: number[];
}

export interface OtlpMetric {
  /** Resource attributes of the process that exported it. */
  resource: Record<string, unknown>;
  name: string;
  unit: string;
  /** A sum whose points only grow (a counter), as opposed to a gauge or an up-down counter. */
  monotonic: boolean;
  points: { attributes: Record<string, unknown>; value: number | OtlpHistogram }[];
}

const sub = (f: Field) => readFields(bytesOf(f));
const each = (fields: Field[], no: number) => fields.filter((f) => f.no === no);

function anyValue(fields: Field[]): unknown {
  for (const f of fields) {
    switch (f.no) {
      case 1:
        return stringOf(f);
      case 2:
        return varintOf(f) !== 0n;
      case 3:
        return Number(BigInt.asIntN(64, varintOf(f)));
      case 4:
        return doubleOf(f);
      case 5:
        return each(sub(f), 1).map((v) => anyValue(sub(v)));
      case 7:
        return bytesOf(f).toString('hex');
    }
  }
  return undefined;
}

function attributes(fields: Field[], no: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of each(fields, no).map(sub)) {
    const key = kv.find((f) => f.no === 1);
    const value = kv.find((f) => f.no === 2);
    if (key !== undefined)
      out[stringOf(key)] = value === undefined ? undefined : anyValue(sub(value));
  }
  return out;
}

function span(fields: Field[]): OtlpSpan {
  const get = (no: number) => fields.find((f) => f.no === no);
  const status = get(15) === undefined ? [] : sub(get(15)!);
  return {
    traceId: bytesOf(get(1)!).toString('hex'),
    spanId: bytesOf(get(2)!).toString('hex'),
    parentSpanId: get(4) === undefined ? '' : bytesOf(get(4)!).toString('hex'),
    name: get(5) === undefined ? '' : stringOf(get(5)!),
    kind: get(6) === undefined ? 0 : Number(varintOf(get(6)!)),
    startTimeUnixNano: fixed64Of(get(7)!).toString(),
    endTimeUnixNano: fixed64Of(get(8)!).toString(),
    attributes: attributes(fields, 9),
    events: each(fields, 11)
      .map(sub)
      .map((e) => ({
        timeUnixNano: fixed64Of(e.find((f) => f.no === 1)!).toString(),
        name: stringOf(e.find((f) => f.no === 2)!),
        attributes: attributes(e, 3),
      })),
    status: {
      message:
        status.find((f) => f.no === 2) === undefined
          ? ''
          : stringOf(status.find((f) => f.no === 2)!),
      code:
        status.find((f) => f.no === 3) === undefined
          ? 0
          : Number(varintOf(status.find((f) => f.no === 3)!)),
    },
  };
}

export function decodeTraceRequest(body: Buffer): {
  spans: OtlpSpan[];
  resources: Record<string, unknown>[];
} {
  const spans: OtlpSpan[] = [];
  const resources: Record<string, unknown>[] = [];
  for (const rs of each(readFields(body), 1).map(sub)) {
    const resource = rs.find((f) => f.no === 1);
    resources.push(resource === undefined ? {} : attributes(sub(resource), 1));
    for (const ss of each(rs, 2).map(sub)) spans.push(...each(ss, 2).map(sub).map(span));
  }
  return { spans, resources };
}

function numberPoint(p: Field[]) {
  const asDouble = p.find((f) => f.no === 4);
  const asInt = p.find((f) => f.no === 6);
  return {
    attributes: attributes(p, 7),
    value:
      asDouble !== undefined
        ? doubleOf(asDouble)
        : asInt !== undefined
          ? Number(BigInt.asIntN(64, fixed64Of(asInt)))
          : 0,
  };
}

function histogramPoint(p: Field[]) {
  const count = p.find((f) => f.no === 4);
  const sum = p.find((f) => f.no === 5);
  return {
    attributes: attributes(p, 9),
    value: {
      count: count === undefined ? 0 : Number(fixed64Of(count)),
      sum: sum === undefined ? 0 : doubleOf(sum),
      bucketCounts: each(p, 6)
        .flatMap((f) => packed64(f, (b, o) => Number(b.readBigUInt64LE(o))))
        .map(Number),
      explicitBounds: each(p, 7)
        .flatMap((f) => packed64(f, (b, o) => b.readDoubleLE(o)))
        .map(Number),
    },
  };
}

export function decodeMetricsRequest(body: Buffer): OtlpMetric[] {
  const out: OtlpMetric[] = [];
  for (const rm of each(readFields(body), 1).map(sub)) {
    const resourceField = rm.find((f) => f.no === 1);
    const resource = resourceField === undefined ? {} : attributes(sub(resourceField), 1);
    for (const sm of each(rm, 2).map(sub)) {
      for (const m of each(sm, 2).map(sub)) {
        const name = stringOf(m.find((f) => f.no === 1)!);
        const unitField = m.find((f) => f.no === 3);
        const gauge = m.find((f) => f.no === 5);
        const sum = m.find((f) => f.no === 7);
        const histogram = m.find((f) => f.no === 9);
        const numbers = sum ?? gauge;
        const points =
          numbers !== undefined
            ? each(sub(numbers), 1).map(sub).map(numberPoint)
            : histogram !== undefined
              ? each(sub(histogram), 1).map(sub).map(histogramPoint)
              : [];
        out.push({
          resource,
          name,
          unit: unitField === undefined ? '' : stringOf(unitField),
          monotonic:
            sum !== undefined && sub(sum).some((f) => f.no === 3 && Number(varintOf(f)) === 1),
          points,
        });
      }
    }
  }
  return out;
}
