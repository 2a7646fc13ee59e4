import type { Dialect, ParseResult, StreamContext, StreamDecoder } from './shared/parse-result.js';
import type { DialectName, InputDialect } from '../events/dialect-name.js';
import { DIALECTS, dialectNamed } from './registry.js';
import { isRecord } from './shared/parse-result.js';
import { DEFAULT_MAX_JSON_DEPTH, jsonDeeperThan } from './shared/json-depth.js';

export interface LineResult {
  readonly dialect: DialectName | 'unknown';
  readonly result: ParseResult;
}

/** Decodes the lines of one stream; with `auto`, locks to a dialect at its first unambiguous line. */
export interface LineDecoder {
  decodeLine(line: string): LineResult;
  /** The dialect the stream is locked to, if any. */
  readonly dialect: DialectName | undefined;
}

export function createLineDecoder(dialect: InputDialect, stream: StreamContext): LineDecoder {
  const decoders = new Map<string, StreamDecoder>();
  const decoderFor = (d: Dialect) => {
    let decoder = decoders.get(d.name);
    if (decoder === undefined) {
      decoder = d.createDecoder(stream);
      decoders.set(d.name, decoder);
    }
    return decoder;
  };
  let locked: Dialect | undefined = dialect === 'auto' ? undefined : dialectNamed(dialect);
  const fixed = locked !== undefined;
  const maxDepth = stream.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;

  const decodeValue = (value: unknown): LineResult => {
    if (locked !== undefined) {
      return { dialect: locked.name, result: decoderFor(locked).decode(value) };
    }
    const verdicts = DIALECTS.map((d) => [d, d.classify(value)] as const);
    const sure = verdicts.filter(([, v]) => v === 'yes').map(([d]) => d);
    const maybe = verdicts.filter(([, v]) => v === 'maybe').map(([d]) => d);
    const chosen =
      sure.length === 1 ? sure[0] : sure.length === 0 && maybe.length === 1 ? maybe[0] : undefined;
    if (chosen !== undefined) {
      if (sure.length === 1) locked = chosen;
      return { dialect: chosen.name, result: decoderFor(chosen).decode(value) };
    }
    const candidates = sure.length > 1 ? sure : maybe;
    return {
      dialect: 'unknown',
      result: {
        ok: false,
        outcome: 'rejected',
        reason: 'undetected_dialect',
        message:
          candidates.length > 1
            ? `cannot tell which dialect this line is: it fits ${candidates.map((d) => d.name).join(' and ')}`
            : `no dialect recognises this line (known: ${DIALECTS.map((d) => d.name).join(', ')})`,
      },
    };
  };

  return {
    get dialect() {
      return locked?.name;
    },
    decodeLine(line) {
      if (jsonDeeperThan(line, maxDepth)) {
        return {
          dialect: locked?.name ?? 'unknown',
          result: {
            ok: false,
            outcome: 'rejected',
            reason: 'json_too_deep',
            message: `JSON nested deeper than ${maxDepth} levels (limit maxJsonDepth)`,
          },
        };
      }
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        return {
          dialect: locked?.name ?? 'unknown',
          result: {
            ok: false,
            outcome: 'rejected',
            reason: 'invalid_json',
            message: `not JSON: ${detail}`,
          },
        };
      }
      // A bare value is the dialect's only where it says so (crabtalk's unit variants are
      // strings): with --dialect as with auto-detection.
      const candidates = fixed && locked !== undefined ? [locked] : DIALECTS;
      if (!isRecord(value) && candidates.every((d) => d.classify(value) === 'no')) {
        return {
          dialect: locked?.name ?? 'unknown',
          result: {
            ok: false,
            outcome: 'rejected',
            reason: 'not_an_object',
            message: `expected a JSON object, got ${describe(value)}`,
          },
        };
      }
      return decodeValue(value);
    },
  };
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

/** Parses one line on its own (a fresh stream). Never throws. */
export function parseLine(line: string, dialect: InputDialect, stream?: StreamContext): LineResult {
  const context = stream ?? {
    scope: 'line',
    arrival: () => [Math.floor(Date.now() / 1000), 0] as [number, number],
  };
  return createLineDecoder(dialect, context).decodeLine(line);
}
