import type { Attributes } from '@opentelemetry/api';
import type { TrackerContext } from '../tracker-context.js';

/**
 * What the bridge has added to one span beyond its contract attributes: bounded per span. The
 * counters are fields of the span's own record (no object of their own per span).
 */
export interface SpanBudget {
  eventsTaken: number;
  attributesTaken: number;
}

/** Whether one more span event fits (`maxEventsPerSpan`); a hit is counted when it does not. */
export function takeEvent(ctx: TrackerContext, budget: SpanBudget): boolean {
  if (budget.eventsTaken < ctx.maxEventsPerSpan) {
    budget.eventsTaken += 1;
    return true;
  }
  ctx.limitHit(
    'events_per_span',
    `a span reached ${ctx.maxEventsPerSpan} events; further events on it are dropped`,
  );
  return false;
}

/** The annotation attributes that still fit (`maxAttributesPerSpan`); a hit is counted when some do not. */
export function takeAttributes(
  ctx: TrackerContext,
  budget: SpanBudget,
  attributes: Attributes,
): Attributes {
  const keys = Object.keys(attributes);
  const room = ctx.maxAttributesPerSpan - budget.attributesTaken;
  if (keys.length <= room) {
    budget.attributesTaken += keys.length;
    return attributes;
  }
  ctx.limitHit(
    'attributes_per_span',
    `a span reached ${ctx.maxAttributesPerSpan} runtime-specific attributes; further ones are dropped`,
  );
  const kept: Attributes = {};
  for (const key of keys.slice(0, Math.max(0, room))) kept[key] = attributes[key];
  budget.attributesTaken = ctx.maxAttributesPerSpan;
  return kept;
}
