// agent-sdk sub-agents: `subagent_progress` reports the tools a sub-agent runs while its parent's
// spawning tool call is open. Each sub-agent becomes a run of its own — `invoke_agent {name}` —
// whose root is a child of the spawning call's `execute_tool` span, with its tools as child spans
// and its token total; it ends when the spawning call ends (failing with it), or with the parent.
// The spawning call is the one whose id is `subagent_id` (what the type says); the real loop sends
// an id of its own (`explore_1873a2c0…`), and then it is the open call named after the sub-agent,
// else the only open call; with none, the root is a child of the parent's run span.
import type { AgentEvent } from '../../events/agent-event.js';
import type { HrTime } from '../../events/hr-time.js';
import type { Payload } from './agent-sdk-schemas.js';
import { childRunId } from '../shared/scoped-runs.js';

interface Subagent {
  readonly runId: string;
  readonly spawningCallId: string | undefined;
  /** Tools running now, by name: the calls' ids, oldest first. */
  readonly running: Map<string, string[]>;
  started: number;
}

export class Subagents {
  /** The parent run's tool calls in progress: id → name. */
  private readonly openCalls = new Map<string, string>();
  private readonly bySubagentId = new Map<string, Subagent>();

  callStarted(callId: string, name: string): void {
    this.openCalls.set(callId, name);
  }

  /** The parent's call ended: the sub-agents it spawned end first, failing if it failed. */
  callEnded(callId: string, ok: boolean, t: HrTime): AgentEvent[] {
    this.openCalls.delete(callId);
    const events: AgentEvent[] = [];
    for (const [id, sub] of this.bySubagentId)
      if (sub.spawningCallId === callId) {
        events.push(...end(sub, t, ok));
        this.bySubagentId.delete(id);
      }
    return events;
  }

  /** The parent run ended: every sub-agent still open ends with it. */
  parentEnded(t: HrTime, ok: boolean): AgentEvent[] {
    const events = [...this.bySubagentId.values()].flatMap((sub) => end(sub, t, ok));
    this.bySubagentId.clear();
    this.openCalls.clear();
    return events;
  }

  progress(parentRunId: string, p: Payload<'subagent_progress'>, t: HrTime): AgentEvent[] {
    const subagentId = p.subagent_id ?? p.subagent_name ?? 'subagent';
    const events: AgentEvent[] = [];
    let sub = this.bySubagentId.get(subagentId);
    if (sub === undefined) {
      sub = {
        runId: childRunId(parentRunId, subagentId),
        spawningCallId: this.spawningCall(subagentId, p.subagent_name ?? undefined),
        running: new Map(),
        started: 0,
      };
      this.bySubagentId.set(subagentId, sub);
      events.push({
        type: 'RunStarted',
        runId: sub.runId,
        time: t,
        agentName: p.subagent_name ?? undefined,
        parentRunId,
        parentToolCallId: sub.spawningCallId,
      });
    }
    const tool = p.tool_name ?? undefined;
    if (tool !== undefined) {
      if (p.completed !== true) {
        sub.started += 1;
        const callId = `${subagentId}/${sub.started}`;
        const running = sub.running.get(tool) ?? [];
        running.push(callId);
        sub.running.set(tool, running);
        events.push({
          type: 'ToolExecutionStarted',
          runId: sub.runId,
          time: t,
          callId,
          toolName: tool,
        });
      } else {
        // Its start, if seen (oldest first); else a call that started and ended at once.
        const callId = sub.running.get(tool)?.shift() ?? `${subagentId}/${(sub.started += 1)}`;
        events.push({
          type: 'ToolExecutionFinished',
          runId: sub.runId,
          time: t,
          callId,
          toolName: tool,
          result:
            p.success === false
              ? { ok: false, error: `${tool} failed` }
              : { ok: true, output: undefined },
        });
      }
    }
    if (typeof p.total_tokens === 'number')
      events.push({
        type: 'Annotation',
        runId: sub.runId,
        time: t,
        target: 'run',
        event: undefined,
        callId: undefined,
        attributes: { 'agent_sdk.subagent.total_tokens': p.total_tokens },
      });
    return events;
  }

  /** The parent's call that spawned the sub-agent (see the file's comment). */
  private spawningCall(subagentId: string, name: string | undefined): string | undefined {
    if (this.openCalls.has(subagentId)) return subagentId;
    const open = [...this.openCalls];
    const named = open.filter(([, tool]) => name !== undefined && tool === name);
    if (named.length > 0) return named.at(-1)![0];
    return open.length === 1 ? open[0]![0] : undefined;
  }
}

function end(sub: Subagent, t: HrTime, ok: boolean): AgentEvent[] {
  return ok
    ? [{ type: 'RunCompleted', runId: sub.runId, time: t }]
    : [{ type: 'RunFailed', runId: sub.runId, time: t, error: 'the spawning tool call failed' }];
}
