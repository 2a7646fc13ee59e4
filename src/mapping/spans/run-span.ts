import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';
import type { AgentEvent } from '../../events/agent-event.js';
import type { DialectName } from '../../events/dialect-name.js';
import { toTraceId } from '../ids.js';
import type { Instruments } from '../metrics/instruments.js';
import type { RunRecord } from '../run-state.js';
import * as S from '../semconv.js';
import { SpanKind, startSpan } from './start-span.js';
import type { TrackerContext } from '../tracker-context.js';

/**
 * Opens a run at its first applied event: the `invoke_agent` root span (a synthesized one when
 * that event is not `RunStarted`), in the trace the run id names (or the parent context's), and
 * the record the run's later events are applied to. `instruments` are the no-op ones for a run
 * rebuilt after its metrics were recorded.
 */
export function startRun(
  ctx: TrackerContext,
  event: AgentEvent,
  dialect: DialectName,
  now: number,
  instruments: Instruments,
): RunRecord {
  const parent = ctx.parentContext;
  const parentTraceId = parent === undefined ? undefined : trace.getSpanContext(parent)?.traceId;
  const traceId = parentTraceId ?? toTraceId(dialect, event.runId);
  const started = event.type === 'RunStarted' ? event : undefined;
  const attributes: Attributes = {
    [S.ATTR_GEN_AI_OPERATION_NAME]: S.GEN_AI_OPERATION_INVOKE_AGENT,
    [S.ATTR_AGENT_RUN_ID]: event.runId,
  };
  const provider =
    started?.provider ?? (event.type === 'ModelStarted' ? event.provider : undefined);
  const model = started?.model ?? (event.type === 'ModelStarted' ? event.model : undefined);
  // The latest conventions keep the provider off the internal invoke_agent span.
  if (provider !== undefined && ctx.latestGenAi !== true)
    attributes[S.ATTR_GEN_AI_PROVIDER_NAME] = provider;
  if (model !== undefined) attributes[S.ATTR_GEN_AI_REQUEST_MODEL] = model;
  if (started?.sessionId !== undefined)
    attributes[S.ATTR_GEN_AI_CONVERSATION_ID] = started.sessionId;
  if (ctx.agentName !== undefined) attributes[S.ATTR_GEN_AI_AGENT_NAME] = ctx.agentName;
  if (started === undefined) attributes[S.ATTR_AGENT_RUN_SYNTHESIZED] = true;
  const name =
    ctx.agentName === undefined
      ? S.GEN_AI_OPERATION_INVOKE_AGENT
      : `${S.GEN_AI_OPERATION_INVOKE_AGENT} ${ctx.agentName}`;
  const span = startSpan({
    tracer: ctx.tracer,
    name,
    kind: SpanKind.INTERNAL,
    parent: parent ?? ROOT_CONTEXT,
    traceId,
    role: 'run',
    startTime: event.time,
    attributes,
    rootTrace: parent === undefined,
  });
  const run: RunRecord = {
    runId: event.runId,
    traceId,
    dialect,
    span,
    eventsTaken: 0,
    attributesTaken: 0,
    parent: parent ?? ROOT_CONTEXT,
    start: event.time,
    synthesized: started === undefined,
    provider,
    model,
    conversationId: started?.sessionId,
    lastSeen: event.time,
    lastActivityMillis: now,
    iteration: undefined,
    chat: undefined,
    chats: [],
    pendingMessageCount: undefined,
    highestIteration: -1,
    iterationCount: 0,
    tools: undefined,
    finishedTools: new Set(),
    toolArguments: undefined,
    inputTokens: undefined,
    outputTokens: undefined,
    sawDoomLoop: false,
    instruments,
  };
  return run;
}
