import type { AgentEvent } from '../events/agent-event.js';

/**
 * A key that is equal for two events exactly when they are the same event of the same run:
 * type, time to the nanosecond, and the fields that tell same-time events apart.
 */
export function eventKey(event: AgentEvent): string {
  const base = `${event.type}@${event.time[0]}.${event.time[1]}`;
  switch (event.type) {
    case 'ModelStarted':
      return `${base}#${event.iteration}`;
    case 'TextDelta':
      return `${base}#${event.delta}`;
    case 'ToolCallStarted':
    case 'ToolCallCompleted':
    case 'ToolExecutionStarted':
    case 'ToolExecutionFinished':
      return `${base}#${event.callId}`;
    case 'ToolCallDelta':
      return `${base}#${event.callId}#${event.delta}`;
    case 'AssistantMessageCommitted':
      return `${base}#${event.messageId ?? ''}#${event.iteration ?? ''}`;
    case 'ToolMessageCommitted':
      return `${base}#${event.messageId ?? ''}`;
    case 'UsageRecorded':
      return `${base}#${event.iteration ?? ''}#${event.usage.inputTokens ?? ''}/${event.usage.outputTokens ?? ''}`;
    case 'Annotation':
      return `${base}#${event.target}#${event.callId ?? ''}#${event.event ?? ''}#${JSON.stringify(event.attributes)}`;
    case 'ContextBuilt':
      return `${base}#${event.messageCount}`;
    case 'DoomLoopDetected':
      return `${base}#${event.description}`;
    case 'CompactionCircuitOpened':
      return `${base}#${event.consecutiveFailures}`;
    case 'RunFailed':
      return `${base}#${event.error}`;
    case 'RunStarted':
    case 'RunCompleted':
    case 'RunCancelled':
      return base;
  }
}
