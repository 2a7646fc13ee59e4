import type { Attributes } from '@opentelemetry/api';
import type { Annotation } from '../../events/agent-event.js';
import { noteOnChat, targetChat } from './chat-span.js';
import type { RunRecord } from '../run-state.js';
import { takeAttributes, takeEvent } from './span-budget.js';
import type { TrackerContext } from '../tracker-context.js';

/** Applies a runtime-specific annotation to the span it targets, scrubbing its text values. */
export function annotate(ctx: TrackerContext, run: RunRecord, event: Annotation): void {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(event.attributes)) {
    attributes[key] =
      typeof value === 'string'
        ? ctx.freeText(value)
        : Array.isArray(value)
          ? value.map((v: string) => ctx.freeText(v))
          : value;
  }
  if (event.target === 'model_call') {
    const chat = targetChat(run, undefined);
    if (chat !== undefined) {
      noteOnChat(ctx, chat, { name: event.event, attributes, time: event.time });
      return;
    }
  }
  const target = (() => {
    switch (event.target) {
      case 'run':
        return run;
      case 'iteration':
      case 'model_call':
        return run.iteration ?? run;
      case 'tool':
        return (event.callId === undefined ? undefined : run.tools?.get(event.callId)) ?? run;
    }
  })();
  if (event.event !== undefined) {
    if (takeEvent(ctx, target)) target.span.addEvent(event.event, attributes, event.time);
    return;
  }
  const kept = takeAttributes(ctx, target, attributes);
  if (Object.keys(kept).length > 0) target.span.setAttributes(kept);
}
