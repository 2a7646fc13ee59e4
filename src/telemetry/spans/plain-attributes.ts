import type { Attributes } from '@opentelemetry/api';
import type { SpanLimits } from '@opentelemetry/sdk-trace';

/** An event given no attributes (the SDK's event then has no `attributes` key). */
export const NO_ATTRIBUTES = Symbol('no attributes');

/** Start attributes as the SDK keeps them, where they are plain (`plainCopy`); `{}` for none. */
export function plainAttributes(
  attributes: Attributes | undefined,
  limits: Required<SpanLimits>,
): Attributes | undefined {
  const { attributeCountLimit, attributeValueLengthLimit: maxLength } = limits;
  // The SDK warns of a length limit that is not positive at every start.
  if (!(maxLength > 0)) return undefined;
  if (typeof attributes !== 'object' || attributes === null) return {};
  return plainCopy(attributes, attributeCountLimit, maxLength, true);
}

/**
 * An event's attributes as the SDK keeps them, where they are plain (`plainCopy`, without arrays:
 * an event takes only arrays of one type) and the length limit is positive (the SDK warns of
 * another); `NO_ATTRIBUTES` for none given.
 */
export function plainEventAttributes(
  attributes: Attributes | undefined,
  limits: Required<SpanLimits>,
): Attributes | typeof NO_ATTRIBUTES | undefined {
  if (typeof attributes !== 'object' || attributes === null) return NO_ATTRIBUTES;
  const { attributePerEventCountLimit, attributeValueLengthLimit } = limits;
  if (!(attributeValueLengthLimit > 0)) return undefined;
  return plainCopy(attributes, attributePerEventCountLimit, attributeValueLengthLimit, false);
}

/**
 * A copy of `attributes` where the SDK's cleaning would keep every one as it is: non-empty keys,
 * within `countLimit`, each value a string within `maxLength`, a number, a boolean, or (where
 * `arrays`) an array of these and nulls, copied. Undefined values are left out, as the SDK leaves
 * them out. Undefined where any is not so (the SDK's cleaning decides).
 */
function plainCopy(
  attributes: Attributes,
  countLimit: number,
  maxLength: number,
  arrays: boolean,
): Attributes | undefined {
  const copy: Attributes = {};
  let count = 0;
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    const value = attributes[key];
    if (value === undefined) continue;
    if (key.length === 0 || count >= countLimit) return undefined;
    if (isPlainScalar(value, maxLength)) copy[key] = value;
    else if (arrays && isPlainArray(value, maxLength)) copy[key] = value.slice();
    else return undefined;
    count += 1;
  }
  return copy;
}

/** Whether the SDK keeps `value` as it is: a string within `maxLength`, a number, a boolean. */
export function isPlainScalar(value: unknown, maxLength: number): boolean {
  return (
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    (typeof value === 'string' && value.length <= maxLength)
  );
}

function isPlainArray(value: unknown, maxLength: number): value is unknown[] {
  if (!Array.isArray(value)) return false;
  for (const item of value as readonly unknown[])
    if (!(item === null || item === undefined || isPlainScalar(item, maxLength))) return false;
  return true;
}
