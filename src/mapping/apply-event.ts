import type { AgentEvent } from '../events/agent-event.js';
import { ACCEPTED, rejected } from './apply-outcome.js';
import type { ApplyOutcome } from './apply-outcome.js';
import { isFirstWrite } from './metrics/record-once.js';
import type { RunRecord } from './run-state.js';
import * as S from './semconv.js';
import { annotate } from './spans/annotate.js';
import { addChatText, commitMessage, recordUsage } from './spans/chat-span.js';
import { startIteration } from './spans/iteration-span.js';
import { learnRunModel } from './spans/run-span.js';
import { takeEvent } from './spans/span-budget.js';
import { beginTool, finishTool, requestTool } from './spans/tool-span.js';
import type { TrackerContext } from './tracker-context.js';

export type { ApplyOutcome } from './apply-outcome.js';

type NonTerminal = Exclude<AgentEvent, { type: 'RunCompleted' | 'RunFailed' | 'RunCancelled' }>;

/** Applies a non-terminal event to an open run. */
export function applyEvent(ctx: TrackerContext, run: RunRecord, event: NonTerminal): ApplyOutcome {
  switch (event.type) {
    case 'RunStarted':
      learnRunModel(ctx, run, event.provider, event.model);
      if (event.sessionId !== undefined && run.conversationId === undefined) {
        run.conversationId = event.sessionId;
        run.span.setAttribute(S.ATTR_GEN_AI_CONVERSATION_ID, event.sessionId);
        run.span.setAttribute(S.ATTR_SESSION_ID, event.sessionId);
      }
      return run.synthesized
        ? ACCEPTED
        : rejected('duplicate', 'run_already_started', 'RunStarted for a run that already started');
    case 'ContextBuilt':
      run.pendingMessageCount = event.messageCount;
      return ACCEPTED;
    case 'ModelStarted': {
      const outcome = startIteration(ctx, run, event);
      if (outcome === ACCEPTED) learnRunModel(ctx, run, event.provider, event.model);
      return outcome;
    }
    case 'TextDelta':
      if (run.chat !== undefined) addChatText(ctx, run, run.chat, event.time, event.delta);
      return ACCEPTED;
    case 'ToolCallStarted':
    case 'ToolCallDelta':
    case 'ToolMessageCommitted':
      return ACCEPTED;
    case 'ToolCallCompleted':
      requestTool(ctx, run, event);
      return ACCEPTED;
    case 'AssistantMessageCommitted':
      learnRunModel(ctx, run, event.provider, event.model);
      commitMessage(ctx, run, event);
      return ACCEPTED;
    case 'Annotation':
      annotate(ctx, run, event);
      return ACCEPTED;
    case 'ToolExecutionStarted':
      return beginTool(ctx, run, event);
    case 'ToolExecutionFinished':
      return finishTool(ctx, run, event);
    case 'UsageRecorded':
      recordUsage(ctx, run, event);
      return ACCEPTED;
    case 'DoomLoopDetected': {
      const attributes = {
        [S.ATTR_AGENT_DOOM_LOOP_DESCRIPTION]: ctx.freeText(event.description),
      };
      for (const target of [run, run.iteration]) {
        if (target !== undefined && takeEvent(ctx, target))
          target.span.addEvent(S.EVENT_DOOM_LOOP_DETECTED, attributes, event.time);
      }
      run.sawDoomLoop = true;
      if (isFirstWrite(run))
        run.instruments.doomLoops.add(1, ctx.metricSets.agent(run.agentName, run));
      return ACCEPTED;
    }
    case 'CompactionCircuitOpened':
      if (takeEvent(ctx, run)) {
        run.span.addEvent(
          S.EVENT_CIRCUIT_BREAKER_OPENED,
          { [S.ATTR_AGENT_COMPACTION_CONSECUTIVE_FAILURES]: event.consecutiveFailures },
          event.time,
        );
      }
      if (isFirstWrite(run))
        run.instruments.breakerOpened.add(1, ctx.metricSets.agent(run.agentName));
      return ACCEPTED;
  }
}
