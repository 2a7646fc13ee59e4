// A model iteration's `agent.iteration` span, its whole life: started by ModelStarted (with its
// model call), ended by the next iteration or the run's end.
import { SpanStatusCode } from '@opentelemetry/api';
import type { Attributes, HrTime } from '@opentelemetry/api';
import type { ModelStarted } from '../../events/agent-event.js';
import { ACCEPTED, rejected } from '../apply-outcome.js';
import type { ApplyOutcome } from '../apply-outcome.js';
import type { RunRecord } from '../run-state.js';
import * as S from '../semconv.js';
import type { TrackerContext } from '../tracker-context.js';
import { closeChat, openChat } from './chat-span.js';
import { SpanKind, startSpan, within } from './start-span.js';

/** ModelStarted: ends the previous iteration, starts the iteration span and its model call. */
export function startIteration(
  ctx: TrackerContext,
  run: RunRecord,
  event: ModelStarted,
): ApplyOutcome {
  if (event.iteration <= run.highestIteration) {
    return rejected(
      'rejected',
      'iteration_out_of_order',
      `ModelStarted for iteration ${event.iteration} after iteration ${run.highestIteration}`,
    );
  }
  if (run.iterationCount >= ctx.maxIterationsPerRun) {
    ctx.limitHit(
      'limit_iterations',
      `run ${run.runId} reached ${ctx.maxIterationsPerRun} iterations; further iterations are rejected`,
    );
    return rejected(
      'rejected',
      'limit_iterations',
      `more than ${ctx.maxIterationsPerRun} iterations in run ${run.runId}`,
    );
  }
  if (run.chat !== undefined) closeChat(run, run.chat, { time: event.time, incomplete: false });
  endIteration(run, event.time);
  run.highestIteration = event.iteration;
  run.iterationCount += 1;

  const n = event.iteration;
  const iterationAttributes: Attributes = { [S.ATTR_AGENT_ITERATION_NUMBER]: n };
  if (run.pendingMessageCount !== undefined)
    iterationAttributes[S.ATTR_AGENT_CONTEXT_MESSAGE_COUNT] = run.pendingMessageCount;
  run.pendingMessageCount = undefined;
  const span = startSpan({
    tracer: ctx.tracer,
    name: S.SPAN_AGENT_ITERATION,
    kind: SpanKind.INTERNAL,
    parent: within(run.parent, run.span),
    traceId: run.traceId,
    role: `${run.roleScope}iteration/${n}`,
    startTime: event.time,
    attributes: iterationAttributes,
  });
  run.spanIds.push(span.spanContext().spanId);
  run.iteration = { number: n, span, eventsTaken: 0, attributesTaken: 0 };
  openChat(run, n, span.spanContext(), event.time, {
    provider: event.provider ?? run.provider,
    model: event.model ?? run.model,
  });
  return ACCEPTED;
}

/** Ends the open iteration's span (failing it with its run when `errorType` is given). */
export function endIteration(run: RunRecord, time: HrTime, errorType?: string): void {
  const iteration = run.iteration;
  if (iteration === undefined) return;
  if (errorType !== undefined) {
    iteration.span.setStatus({ code: SpanStatusCode.ERROR });
    iteration.span.setAttribute(S.ATTR_ERROR_TYPE, errorType);
  }
  iteration.span.end(time);
  run.iteration = undefined;
}
