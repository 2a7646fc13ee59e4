import { parseRfc3339 } from '../../events/hr-time.js';
import { isRecord } from './parse-result.js';

/**
 * A plain payload field as its schema takes it: `id` a non-empty string, `count` a non-negative
 * integer, `?` also null or absent.
 */
export type FieldKind = 'id' | 'string' | 'string?' | 'count' | 'count?';

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * The quick check of a payload of plain fields (run id, timestamp and `fields`): the fields the
 * conversion reads, when every one is as the schema wants it; else undefined, and the schema
 * decides (and words the rejection). It accepts nothing the schema rejects and converts to the
 * same event (a differential test holds it to that); it only skips the schema's work for the
 * payloads that are fine, most of them.
 */
export function quickFields(
  fields: Readonly<Record<string, FieldKind>>,
): (payload: unknown) => Record<string, unknown> | undefined {
  const entries = Object.entries(fields);
  return (payload) => {
    if (!isRecord(payload)) return undefined;
    const runId = payload['run_id'];
    const stamp = payload['timestamp'];
    if (typeof runId !== 'string' || runId.length === 0 || typeof stamp !== 'string')
      return undefined;
    const time = parseRfc3339(stamp);
    if (time === undefined) return undefined;
    const out: Record<string, unknown> = { run_id: runId, timestamp: time };
    for (const [key, kind] of entries) {
      const value = payload[key];
      const ok =
        kind === 'string'
          ? typeof value === 'string'
          : kind === 'id'
            ? typeof value === 'string' && value.length > 0
            : kind === 'count'
              ? isCount(value)
              : kind === 'string?'
                ? value == null || typeof value === 'string'
                : value == null || isCount(value);
      if (!ok) return undefined;
      out[key] = value;
    }
    return out;
  };
}
