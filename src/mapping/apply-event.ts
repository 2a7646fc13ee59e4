import type { AgentEvent } from '../events/agent-event.js';
import { ACCEPTED, rejected } from './apply-outcome.js';
import type { ApplyOutcome } from './apply-outcome.js';
import { toContentAttribute } from './privacy/content.js';
import { agentMetricAttributes } from './metrics/instruments.js';
import {
  commitMessage,
  learnRunModel,
  recordUsage,
  startIteration,
} from './spans/iteration-span.js';
import { annotate } from './spans/annotate.js';
import { closeChat, noteOnChat } from './spans/chat-span.js';
import { takeEvent } from './spans/span-budget.js';
import type { RunRecord } from './run-state.js';
import * as S from './semconv.js';
import { finishTool, startTool, toolLimit } from './spans/tool-span.js';
import type { TrackerContext } from './tracker-context.js';

export type { ApplyOutcome } from './apply-outcome.js';

/** Captured arguments kept per run for calls not yet executed (each at most `maxContentBytes`). */
const MAX_PENDING_TOOL_ARGUMENTS = 64;

type NonTerminal = Exclude<AgentEvent, { type: 'RunCompleted' | 'RunFailed' | 'RunCancelled' }>;

/** Applies a non-terminal event to an open run. */
export function applyEvent(ctx: TrackerContext, run: RunRecord, event: NonTerminal): ApplyOutcome {
  switch (event.type) {
    case 'RunStarted':
      learnRunModel(ctx, run, event.provider, event.model);
      if (event.sessionId !== undefined && run.conversationId === undefined) {
        run.conversationId = event.sessionId;
        run.span.setAttribute(S.ATTR_GEN_AI_CONVERSATION_ID, event.sessionId);
      }
      return run.synthesized
        ? ACCEPTED
        : rejected('duplicate', 'run_already_started', 'RunStarted for a run that already started');
    case 'ContextBuilt':
      run.pendingMessageCount = event.messageCount;
      return ACCEPTED;
    case 'ModelStarted':
      return startIteration(ctx, run, event);
    case 'TextDelta': {
      const chat = run.chat;
      if (chat === undefined) return ACCEPTED;
      chat.firstChunk ??= event.time;
      if (ctx.captureContent && chat.text.length <= ctx.maxContentBytes) chat.text += event.delta;
      return ACCEPTED;
    }
    case 'ToolCallStarted':
    case 'ToolCallDelta':
    case 'ToolMessageCommitted':
      return ACCEPTED;
    case 'ToolCallCompleted': {
      const attributes = {
        [S.ATTR_GEN_AI_TOOL_NAME]: event.toolName,
        [S.ATTR_GEN_AI_TOOL_CALL_ID]: event.callId,
      };
      if (run.chat !== undefined) {
        noteOnChat(ctx, run.chat, {
          name: S.EVENT_TOOL_CALL_REQUESTED,
          attributes,
          time: event.time,
        });
      } else {
        const target = run.iteration ?? run;
        if (takeEvent(ctx, target))
          target.span.addEvent(S.EVENT_TOOL_CALL_REQUESTED, attributes, event.time);
      }
      if (ctx.captureContent) {
        const pending = (run.toolArguments ??= new Map());
        if (pending.size >= MAX_PENDING_TOOL_ARGUMENTS) {
          // Arguments of calls that never ran: the oldest give way.
          pending.delete(pending.keys().next().value as string);
          ctx.limitHit(
            'pending_tool_arguments',
            `more than ${MAX_PENDING_TOOL_ARGUMENTS} tool calls of one run waited for execution; the oldest arguments were dropped`,
          );
        }
        pending.set(
          event.callId,
          toContentAttribute(event.arguments, ctx.maxContentBytes, ctx.scrub),
        );
      }
      return ACCEPTED;
    }
    case 'AssistantMessageCommitted':
      commitMessage(ctx, run, event);
      return ACCEPTED;
    case 'Annotation':
      annotate(ctx, run, event);
      return ACCEPTED;
    case 'ToolExecutionStarted': {
      if (run.tools?.has(event.callId) === true || run.finishedTools.has(event.callId)) {
        return rejected(
          'duplicate',
          'tool_already_started',
          `tool call ${event.callId} already started`,
        );
      }
      const limited = toolLimit(ctx, run);
      if (limited !== undefined) return limited;
      if (run.chat !== undefined) closeChat(run, run.chat, { time: event.time, incomplete: false });
      startTool(ctx, run, event.callId, event.toolName, event.time);
      return ACCEPTED;
    }
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
      run.instruments.doomLoops.add(1, agentMetricAttributes(ctx.agentName, run));
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
      run.instruments.breakerOpened.add(1, agentMetricAttributes(ctx.agentName));
      return ACCEPTED;
  }
}
