import type { AnnotationValue } from '../../events/agent-event.js';

/** Drops the attributes a runtime left out (null or undefined). */
export function defined(
  attributes: Record<string, AnnotationValue | null | undefined>,
): Record<string, AnnotationValue> {
  return Object.fromEntries(
    Object.entries(attributes).filter(
      (e): e is [string, AnnotationValue] => e[1] !== null && e[1] !== undefined,
    ),
  );
}
