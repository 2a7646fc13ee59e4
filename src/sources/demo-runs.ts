import { randomUUID } from 'node:crypto';

// Realistic behest 0.2.2 runs for `agent-otel-bridge demo`, as the JSON lines behest publishes.

type Payload = Record<string, unknown>;
interface TimedLine {
  readonly at: number;
  readonly seq: number;
  readonly line: string;
}

const PROVIDER = 'openai';
const MODEL = 'gpt-4o-mini';

/** A run under construction: a clock in microseconds and the lines emitted so far. */
class RunScript {
  readonly runId = randomUUID();
  private at: number;
  readonly lines: TimedLine[] = [];
  private iteration = 0;

  constructor(
    startMicros: number,
    private readonly seq: { n: number },
  ) {
    this.at = startMicros;
  }

  emit(variant: string, payload: Payload, afterMicros = 1000): this {
    this.at += afterMicros;
    const timestamp = `${new Date(Math.floor(this.at / 1000)).toISOString().slice(0, 19)}.${String(this.at % 1_000_000).padStart(6, '0')}Z`;
    const body = { run_id: this.runId, ...payload, timestamp };
    this.lines.push({ at: this.at, seq: this.seq.n++, line: JSON.stringify({ [variant]: body }) });
    return this;
  }

  start(): this {
    return this.emit(
      'RunStarted',
      { session_id: randomUUID(), provider: PROVIDER, model: MODEL },
      0,
    );
  }

  /** One model iteration that streams `text` and optionally requests tool calls. */
  model(
    text: string,
    tools: readonly { name: string; args: unknown }[] = [],
    tokens = [600, 40],
  ): string[] {
    this.iteration += 1;
    this.emit('ContextBuilt', { message_count: 1 + this.iteration * 2 }, 2_000);
    this.emit('ModelStarted', { provider: PROVIDER, model: MODEL, iteration: this.iteration }, 300);
    const words = text.split(/(?<= )/);
    words.forEach((delta, i) => this.emit('TextDelta', { delta }, i === 0 ? 380_000 : 25_000));
    const callIds = tools.map((tool) => {
      const id = `call_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      this.emit('ToolCallStarted', { call_id: id, tool_name: tool.name }, 40_000);
      this.emit('ToolCallDelta', { call_id: id, delta: JSON.stringify(tool.args) }, 15_000);
      this.emit(
        'ToolCallCompleted',
        { call: { id, name: tool.name, arguments: tool.args } },
        5_000,
      );
      return id;
    });
    this.emit(
      'UsageRecorded',
      {
        usage: {
          input_tokens: tokens[0],
          output_tokens: tokens[1],
          total_tokens: (tokens[0] ?? 0) + (tokens[1] ?? 0),
        },
      },
      4_000,
    );
    this.emit('AssistantMessageCommitted', { message_id: randomUUID() }, 2_000);
    return callIds;
  }

  tool(callId: string, name: string, result: Payload, durationMs: number): this {
    this.emit('ToolExecutionStarted', { call_id: callId, tool_name: name }, 1_000);
    this.emit(
      'ToolExecutionFinished',
      { call_id: callId, tool_name: name, result, duration_ms: durationMs },
      durationMs * 1000,
    );
    return this.emit('ToolMessageCommitted', { message_id: randomUUID() }, 500);
  }

  complete(finishReason: unknown = 'stop'): this {
    return this.emit(
      'RunCompleted',
      { finish_reason: finishReason, iterations: this.iteration },
      3_000,
    );
  }
}

type Scenario = (run: RunScript) => void;

const SCENARIOS: readonly Scenario[] = [
  function weatherLookup(run) {
    run.start();
    const [call] = run.model('Let me check the weather in Paris. ', [
      { name: 'get_weather', args: { city: 'Paris' } },
    ]);
    run.tool(call!, 'get_weather', { Success: { output: { temp_c: 21, sky: 'clear' } } }, 42);
    run.model('It is 21 °C and clear in Paris right now.', [], [820, 18]);
    run.complete();
  },
  function toolFailureThenRecovery(run) {
    run.start();
    const [call] = run.model('Searching the order database. ', [
      { name: 'lookup_order', args: { order_id: 'A-1042' } },
    ]);
    run.tool(
      call!,
      'lookup_order',
      { Failure: { error: 'timeout after 3000 ms (db password=hunter2)' } },
      3000,
    );
    const [retry] = run.model('The lookup timed out, trying the cache. ', [
      { name: 'lookup_order_cache', args: { order_id: 'A-1042' } },
    ]);
    run.tool(retry!, 'lookup_order_cache', { Success: { output: { status: 'shipped' } } }, 12);
    run.model('Your order A-1042 has shipped.', [], [1400, 12]);
    run.complete();
  },
  function doomLoop(run) {
    run.start();
    for (let i = 0; i < 3; i += 1) {
      const [call] = run.model('Checking the file again. ', [
        { name: 'read_file', args: { path: 'config.toml' } },
      ]);
      run.tool(call!, 'read_file', { Success: { output: 'not found' } }, 5);
    }
    run.emit(
      'DoomLoopDetected',
      { description: 'consecutive duplicate: read_file called 3 times' },
      1_000,
    );
    run.emit(
      'RunFailed',
      { error: 'doom loop detected: consecutive duplicate: read_file called 3 times' },
      500,
    );
  },
  function breakerTrip(run) {
    run.start();
    run.model('Summarising the long thread. ', [], [120_000, 30]);
    run.emit('CompactionCircuitOpened', { consecutive_failures: 3 }, 50_000);
    run.emit('RunFailed', { error: 'compaction failed: context overflow after 3 attempts' }, 1_000);
  },
  function cancelledMidTool(run) {
    run.start();
    const [call] = run.model('Running the test suite. ', [
      { name: 'run_tests', args: { suite: 'all' } },
    ]);
    run.emit('ToolExecutionStarted', { call_id: call, tool_name: 'run_tests' }, 1_000);
    run.emit('RunCancelled', {}, 2_500_000);
  },
  function pauseTurn(run) {
    run.start();
    run.model('Drafting the reply; I will continue when you confirm.');
    run.complete({ unknown: 'pause_turn' });
  },
];

/** Lines of `runs` demo runs (the scenarios in turn), interleaved by time as concurrent runs are. */
export function createDemoLines(runs = SCENARIOS.length, nowMillis = Date.now()): string[] {
  const seq = { n: 0 };
  const all: TimedLine[] = [];
  const base = (nowMillis - 60_000) * 1000;
  for (let i = 0; i < runs; i += 1) {
    const run = new RunScript(base + i * 150_000, seq);
    SCENARIOS[i % SCENARIOS.length]!(run);
    all.push(...run.lines);
  }
  all.sort((a, b) => a.at - b.at || a.seq - b.seq);
  return all.map((l) => l.line);
}
