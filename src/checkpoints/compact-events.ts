import type { AgentEvent, TextDelta, ToolCallDelta } from '../events/agent-event.js';
import { compareHrTime } from '../events/hr-time.js';

type Delta = TextDelta | ToolCallDelta;

const isDelta = (event: AgentEvent): event is Delta =>
  event.type === 'TextDelta' || event.type === 'ToolCallDelta';

/**
 * A run's events, fewer but mapping to the same spans and metrics: in time order, each unbroken
 * sequence of text deltas (of tool-argument deltas of one call) becomes its first and its last
 * delta, the first carrying the text of all but the last (at most `maxTextChars` characters of it).
 * The first delta's time is the first chunk's, the last one's the run's last activity: nothing the
 * mapping reads is lost. Without content capture the events leave without content (deltas' text,
 * tool arguments and output), which the mapping then does not read.
 */
export function compactEvents(
  events: readonly AgentEvent[],
  content: { readonly capture: boolean; readonly maxTextChars: number },
): AgentEvent[] {
  const keepTextChars = content.capture ? content.maxTextChars : 0;
  const ordered = events
    .map((event, seq) => ({ event: content.capture ? event : withoutContent(event), seq }))
    .sort((a, b) => compareHrTime(a.event.time, b.event.time) || a.seq - b.seq)
    .map((x) => x.event);
  const out: AgentEvent[] = [];
  let i = 0;
  while (i < ordered.length) {
    const first = ordered[i]!;
    if (!isDelta(first)) {
      out.push(first);
      i += 1;
      continue;
    }
    let j = i + 1;
    while (j < ordered.length && sameSequence(first, ordered[j]!)) j += 1;
    if (j - i <= 2) {
      out.push(...ordered.slice(i, j));
    } else {
      let text = '';
      for (let k = i; k < j - 1 && text.length < keepTextChars; k += 1)
        text += (ordered[k] as Delta).delta;
      out.push({ ...first, delta: text.slice(0, keepTextChars) }, ordered[j - 1]!);
    }
    i = j;
  }
  return out;
}

function sameSequence(first: Delta, next: AgentEvent): boolean {
  if (next.type !== first.type) return false;
  return first.type === 'TextDelta' || (next as ToolCallDelta).callId === first.callId;
}

/** The event without what content capture would export (the mapping does not read it otherwise). */
function withoutContent(event: AgentEvent): AgentEvent {
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check -- the rest carry no content
  switch (event.type) {
    case 'TextDelta':
    case 'ToolCallDelta':
      return event.delta === '' ? event : { ...event, delta: '' };
    case 'ToolCallCompleted':
      return { ...event, arguments: null };
    case 'ToolExecutionFinished':
      if (event.result.ok) return { ...event, result: { ok: true, output: null } };
      return event.result.isOutput === true
        ? { ...event, result: { ok: false, error: '', isOutput: true } }
        : event;
    default:
      return event;
  }
}
