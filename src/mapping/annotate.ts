import type { Attributes } from '@opentelemetry/api';
import type { Annotation } from '../events/agent-event.js';
import { targetChat } from './chat-end.js';
import type { RunRecord } from './run-state.js';
import type { TrackerContext } from './tracker-context.js';

/** Applies a runtime-specific annotation to the span it targets, scrubbing its text values. */
export function annotate(ctx: TrackerContext, run: RunRecord, event: Annotation): void {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(event.attributes)) {
    attributes[key] =
      typeof value === 'string'
        ? ctx.scrub(value)
        : Array.isArray(value)
          ? value.map((v: string) => ctx.scrub(v))
          : value;
  }
  const span = (() => {
    switch (event.target) {
      case 'run':
        return run.span;
      case 'iteration':
        return run.iteration?.span ?? run.span;
      case 'model_call': {
        const chat = targetChat(run, undefined);
        return chat?.span ?? run.iteration?.span ?? run.span;
      }
      case 'tool':
        return (
          (event.callId === undefined ? undefined : run.tools.get(event.callId)?.span) ?? run.span
        );
    }
  })();
  if (event.event === undefined) span.setAttributes(attributes);
  else span.addEvent(event.event, attributes, event.time);
}
