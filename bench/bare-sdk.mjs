// The baseline of the in-process benchmark: the same spans, attributes, span events and metric
// points as the bridge produces for the workload in bench/workload.mjs, written by hand straight
// against the OpenTelemetry SDK from pre-parsed events, with nothing the workload does not need:
// no validation, duplicate detection, limits, out-of-order handling or deterministic ids.
// `tallyEvents`: count `agent_bridge.events` in a variable reported by an observable counter (as
// the bridge does) instead of one synchronous `add` per event.
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';

const TOKEN_BUCKETS = Array.from({ length: 14 }, (_, i) => 4 ** i);
const DURATION_BUCKETS = Array.from({ length: 14 }, (_, i) => Math.round(2 ** i) / 100);
const RUN_BUCKETS = Array.from({ length: 13 }, (_, i) => Math.round(2 ** i * 10) / 100);
const ITERATION_BUCKETS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100];

const seconds = (end, start) => end[0] - start[0] + (end[1] - start[1]) / 1e9;

export function createBareSdkMapper(tracerProvider, meterProvider, { tallyEvents = false } = {}) {
  const tracer = tracerProvider.getTracer('bare-sdk');
  const meter = meterProvider.getMeter('bare-sdk');
  const histogram = (name, unit, buckets) =>
    meter.createHistogram(name, { unit, advice: { explicitBucketBoundaries: buckets } });
  const tokenUsage = histogram('gen_ai.client.token.usage', '{token}', TOKEN_BUCKETS);
  const operationDuration = histogram('gen_ai.client.operation.duration', 's', DURATION_BUCKETS);
  const firstChunk = histogram(
    'gen_ai.client.operation.time_to_first_chunk',
    's',
    DURATION_BUCKETS,
  );
  const runDuration = histogram('gen_ai.invoke_agent.duration', 's', RUN_BUCKETS);
  const toolDuration = histogram('gen_ai.execute_tool.duration', 's', DURATION_BUCKETS);
  const iterations = histogram('agent.iterations', '{iteration}', ITERATION_BUCKETS);
  const runsCounter = meter.createCounter('agent.runs', { unit: '{run}' });
  const runsActive = meter.createUpDownCounter('agent.runs.active', { unit: '{run}' });
  const toolCalls = meter.createCounter('agent.tool.calls', { unit: '{call}' });
  const accepted = { 'agent_bridge.dialect': 'native', 'agent_bridge.event.outcome': 'accepted' };
  let tallied = 0;
  const bridgeEvents = tallyEvents
    ? { add: () => (tallied += 1) }
    : meter.createCounter('agent_bridge.events', { unit: '{event}' });
  if (tallyEvents) {
    meter
      .createObservableCounter('agent_bridge.events', { unit: '{event}' })
      .addCallback((result) => result.observe(tallied, accepted));
  }

  const runs = new Map();

  return function handle(e) {
    bridgeEvents.add(1, accepted);
    const run = runs.get(e.runId);
    switch (e.type) {
      case 'RunStarted': {
        const span = tracer.startSpan(
          'invoke_agent',
          {
            kind: SpanKind.INTERNAL,
            startTime: e.time,
            root: true,
            attributes: {
              'gen_ai.operation.name': 'invoke_agent',
              'agent.run.id': e.runId,
              'gen_ai.provider.name': e.provider,
              'gen_ai.request.model': e.model,
              'gen_ai.conversation.id': e.sessionId,
            },
          },
          ROOT_CONTEXT,
        );
        runs.set(e.runId, {
          span,
          context: trace.setSpan(ROOT_CONTEXT, span),
          start: e.time,
          sessionId: e.sessionId,
          model: { 'gen_ai.provider.name': e.provider, 'gen_ai.request.model': e.model },
          pendingMessageCount: undefined,
          iteration: undefined,
          chat: undefined,
          chats: [],
          tools: new Map(),
          iterations: 0,
          inputTokens: 0,
          outputTokens: 0,
        });
        runsActive.add(1, {});
        return;
      }
      case 'ContextBuilt':
        run.pendingMessageCount = e.messageCount;
        return;
      case 'ModelStarted': {
        run.iteration?.span.end(e.time);
        run.iterations += 1;
        const span = tracer.startSpan(
          'agent.iteration',
          {
            startTime: e.time,
            attributes: {
              'agent.iteration.number': e.iteration,
              'agent.context.message_count': run.pendingMessageCount,
            },
          },
          run.context,
        );
        const context = trace.setSpan(run.context, span);
        run.iteration = { span, context };
        const chatSpan = tracer.startSpan(
          `chat ${e.model}`,
          {
            kind: SpanKind.CLIENT,
            startTime: e.time,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': e.provider,
              'gen_ai.request.model': e.model,
              'gen_ai.conversation.id': run.sessionId,
              'agent.iteration.number': e.iteration,
            },
          },
          context,
        );
        run.chat = { span: chatSpan, start: e.time, end: undefined, first: undefined, usage: [] };
        run.chats.push(run.chat);
        return;
      }
      case 'TextDelta':
        if (run.chat.first === undefined) {
          run.chat.first = e.time;
          run.chat.span.setAttribute(
            'gen_ai.response.time_to_first_chunk',
            seconds(e.time, run.chat.start),
          );
        }
        return;
      case 'ToolCallCompleted':
        run.chat.span.addEvent(
          'agent.tool_call.requested',
          { 'gen_ai.tool.name': e.toolName, 'gen_ai.tool.call.id': e.callId },
          e.time,
        );
        return;
      case 'UsageRecorded':
        run.chat.usage.push(e.usage);
        run.inputTokens += e.usage.inputTokens;
        run.outputTokens += e.usage.outputTokens;
        tokenUsage.record(e.usage.inputTokens, {
          'gen_ai.operation.name': 'chat',
          ...run.model,
          'gen_ai.token.type': 'input',
        });
        tokenUsage.record(e.usage.outputTokens, {
          'gen_ai.operation.name': 'chat',
          ...run.model,
          'gen_ai.token.type': 'output',
        });
        return;
      case 'AssistantMessageCommitted':
        run.chat.end = e.time;
        run.chat = undefined;
        return;
      case 'ToolExecutionStarted': {
        const span = tracer.startSpan(
          `execute_tool ${e.toolName}`,
          {
            startTime: e.time,
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': e.toolName,
              'gen_ai.tool.call.id': e.callId,
              'gen_ai.tool.type': 'function',
            },
          },
          run.iteration.context,
        );
        run.tools.set(e.callId, { span, start: e.time });
        return;
      }
      case 'ToolExecutionFinished': {
        const tool = run.tools.get(e.callId);
        run.tools.delete(e.callId);
        tool.span.setAttribute('agent.tool.outcome', 'success');
        tool.span.end(e.time);
        const attributes = { 'gen_ai.tool.name': e.toolName, 'agent.tool.outcome': 'success' };
        toolDuration.record(seconds(e.time, tool.start), attributes);
        toolCalls.add(1, attributes);
        return;
      }
      case 'RunCompleted': {
        runs.delete(e.runId);
        for (const chat of run.chats) {
          for (const usage of chat.usage) {
            chat.span.setAttribute('gen_ai.usage.input_tokens', usage.inputTokens);
            chat.span.setAttribute('gen_ai.usage.output_tokens', usage.outputTokens);
          }
          chat.span.end(chat.end);
          const attributes = { 'gen_ai.operation.name': 'chat', ...run.model };
          operationDuration.record(seconds(chat.end, chat.start), attributes);
          firstChunk.record(seconds(chat.first, chat.start), attributes);
        }
        run.iteration?.span.end(e.time);
        run.span.setAttribute('agent.run.outcome', 'completed');
        run.span.setAttribute('agent.run.iterations', run.iterations);
        run.span.setAttribute('gen_ai.usage.input_tokens', run.inputTokens);
        run.span.setAttribute('gen_ai.usage.output_tokens', run.outputTokens);
        run.span.end(e.time);
        const attributes = { ...run.model, 'agent.run.outcome': 'completed' };
        runDuration.record(seconds(e.time, run.start), attributes);
        runsCounter.add(1, attributes);
        runsActive.add(-1, {});
        iterations.record(run.iterations, { 'agent.run.outcome': 'completed' });
        return;
      }
      default:
        return;
    }
  };
}
