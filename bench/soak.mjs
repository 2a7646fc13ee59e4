// Soak and leak: a million runs (≈ 25 million behest events) through `ingest` (stdin) and through
// `serve` (HTTP), with `--open` runs in progress at any time and 1 % abandoned (they stop without a
// terminal event). The bridge's RSS is sampled every 2 s; the final `agent.runs` (OTLP/JSON, read by
// the receiver) must account for every run by outcome, and no event may be rejected.
// Usage: node bench/soak.mjs [--runs 1000000] [--open 10000] [--only ingest|http]
// Exits 1 when a run is unaccounted for or an event was rejected.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000000' },
    open: { type: 'string', default: '10000' },
    only: { type: 'string' },
  },
});
const RUNS = Number(values.runs);
const OPEN = Number(values.open);
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

// ---- the workload -------------------------------------------------------------------------------

const BASE_MICROS = Date.UTC(2025, 5, 1) * 1000;
const stamp = (micros) => {
  const iso = new Date(Math.floor(micros / 1000)).toISOString();
  return `${iso.slice(0, 19)}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
};
const runIdOf = (n) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** The lines of one run, lazily: 24 events, or fewer when it is abandoned. */
function* runLines(n, outcome) {
  const run = runIdOf(n);
  let t = BASE_MICROS + n * 1000;
  const line = (variant, body) => {
    t += 1000;
    return `{"${variant}":{"run_id":"${run}",${body}"timestamp":"${stamp(t)}"}}`;
  };
  yield line('RunStarted', `"session_id":"${run}","provider":"openai","model":"gpt-4o-mini",`);
  for (let i = 1; i <= 2; i += 1) {
    if (outcome === 'abandoned' && i === 2) return;
    const call = `call_${i}`;
    yield line('ContextBuilt', `"message_count":${i * 2 + 1},`);
    yield line('ModelStarted', `"provider":"openai","model":"gpt-4o-mini","iteration":${i},`);
    for (const word of ['Checking ', 'the ', 'weather.'])
      yield line('TextDelta', `"delta":"${word}",`);
    yield line('ToolCallStarted', `"call_id":"${call}","tool_name":"get_weather",`);
    yield line(
      'ToolCallCompleted',
      `"call":{"id":"${call}","name":"get_weather","arguments":{"city":"Paris"}},`,
    );
    yield line(
      'UsageRecorded',
      `"usage":{"input_tokens":412,"output_tokens":37,"total_tokens":449},`,
    );
    yield line('AssistantMessageCommitted', `"message_id":"${run}-${i}",`);
    yield line('ToolExecutionStarted', `"call_id":"${call}","tool_name":"get_weather",`);
    yield line(
      'ToolExecutionFinished',
      `"call_id":"${call}","tool_name":"get_weather","result":{"Success":{"output":{"temp_c":21}}},"duration_ms":42,`,
    );
  }
  if (outcome === 'completed') yield line('RunCompleted', '"iterations":2,');
  else if (outcome === 'failed') yield line('RunFailed', '"error":"provider returned 500",');
  else yield line('RunCancelled', '');
}

/** 1 % abandoned, 4 % failed, 2 % cancelled, the rest completed (deterministic per run). */
const outcomeOf = (n) =>
  n % 100 === 7 ? 'abandoned' : n % 25 === 3 ? 'failed' : n % 50 === 11 ? 'cancelled' : 'completed';

/** Chunks of NDJSON with `OPEN` runs interleaved at any time; counts what it generated. */
function* workload(chunkLines) {
  const expected = { completed: 0, failed: 0, cancelled: 0, abandoned: 0, events: 0 };
  const active = [];
  let next = 0;
  const startRun = () => {
    const outcome = outcomeOf(next);
    expected[outcome] += 1;
    active.push(runLines(next, outcome));
    next += 1;
  };
  while (active.length < OPEN && next < RUNS) startRun();
  let chunk = [];
  let slot = 0;
  while (active.length > 0) {
    slot = slot % active.length;
    const step = active[slot].next();
    if (step.done) {
      active.splice(slot, 1);
      if (next < RUNS) startRun();
      continue;
    }
    chunk.push(step.value);
    expected.events += 1;
    slot += 1;
    if (chunk.length === chunkLines) {
      yield chunk.join('\n') + '\n';
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk.join('\n') + '\n';
  return expected;
}

// ---- the receiver: OTLP/JSON, keeping the latest cumulative agent.runs and agent_bridge.events ----

async function startReceiver() {
  const latest = { runs: {}, events: {} };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/metrics') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rm of body.resourceMetrics ?? [])
          for (const sm of rm.scopeMetrics ?? [])
            for (const m of sm.metrics ?? []) {
              const target =
                m.name === 'agent.runs' ? 'runs' : m.name === 'agent_bridge.events' ? 'events' : '';
              if (target === '') continue;
              const totals = {};
              for (const p of m.sum?.dataPoints ?? []) {
                const key = (p.attributes ?? []).find((a) =>
                  ['agent.run.outcome', 'agent_bridge.event.outcome'].includes(a.key),
                )?.value?.stringValue;
                totals[key] = (totals[key] ?? 0) + Number(p.asInt ?? p.asDouble ?? 0);
              }
              latest[target] = totals;
            }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${server.address().port}`,
    latest,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

// ---- measuring a bridge process -------------------------------------------------------------------

function sampleRss(pid) {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return NaN;
  }
}

function startBridge(args, endpoint) {
  const child = spawn(process.execPath, [cli, ...args], {
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
      // Room for the runs in progress, the abandoned ones (ended at shutdown) and those in their
      // grace period: over HTTP, two requests in flight may be taken in either order, and a run's
      // first lines may come before another's last (at 1.2 × the runs in progress, one run on a
      // loaded machine ended 363 runs for room, their terminal events then late).
      AGENT_OTEL_BRIDGE_MAX_OPEN_RUNS: String(OPEN * 2),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  child.stdout.resume();
  const samples = [];
  const started = Date.now();
  const timer = setInterval(
    () => samples.push({ seconds: (Date.now() - started) / 1000, rssMiB: sampleRss(child.pid) }),
    2000,
  );
  const exited = new Promise((resolve) =>
    child.on('close', (code) => {
      clearInterval(timer);
      resolve({ code, stderr, samples, seconds: (Date.now() - started) / 1000 });
    }),
  );
  return { child, exited, stderr: () => stderr };
}

/** Least-squares slope of RSS over the second half of the samples (after warm-up), MiB per minute. */
function slope(samples) {
  const s = samples.filter((x) => Number.isFinite(x.rssMiB)).slice(Math.floor(samples.length / 2));
  if (s.length < 3) return 0;
  const mx = s.reduce((a, x) => a + x.seconds, 0) / s.length;
  const my = s.reduce((a, x) => a + x.rssMiB, 0) / s.length;
  const num = s.reduce((a, x) => a + (x.seconds - mx) * (x.rssMiB - my), 0);
  const den = s.reduce((a, x) => a + (x.seconds - mx) ** 2, 0);
  return (num / den) * 60;
}

async function soakIngest(receiver) {
  const bridge = startBridge(['ingest', '--quiet', '-'], receiver.endpoint);
  const gen = workload(2000);
  let step = gen.next();
  while (!step.done) {
    if (!bridge.child.stdin.write(step.value))
      await new Promise((r) => bridge.child.stdin.once('drain', r));
    step = gen.next();
  }
  bridge.child.stdin.end();
  return { expected: step.value, result: await bridge.exited };
}

async function soakHttp(receiver) {
  const bridge = startBridge(['serve', '--port', '0'], receiver.endpoint);
  const url = await new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+\/v1\/events)/.exec(bridge.stderr());
      if (m === null) return;
      clearInterval(timer);
      resolve(m[1]);
    }, 50);
    setTimeout(() => reject(new Error(`serve did not start: ${bridge.stderr()}`)), 10_000).unref();
  });
  const fedFrom = Date.now();
  const gen = workload(1000);
  const inFlight = new Set();
  let rejected = 0;
  let step = gen.next();
  while (!step.done) {
    const body = step.value;
    const request = fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', 'x-agent-stream': 'soak' },
      body,
    })
      .then(async (res) => {
        const answer = await res.json();
        if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(answer)}`);
        rejected += answer.rejected;
      })
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
    if (inFlight.size >= 2) await Promise.race(inFlight);
    step = gen.next();
  }
  await Promise.all(inFlight);
  const fedSeconds = (Date.now() - fedFrom) / 1000;
  // serve keeps runs open; the abandoned ones are ended as abandoned when it shuts down.
  await new Promise((r) => setTimeout(r, 6000));
  bridge.child.kill('SIGTERM');
  return {
    expected: step.value,
    result: { ...(await bridge.exited), seconds: fedSeconds },
    rejected,
  };
}

export async function soakBench({ only } = {}) {
  const reports = [];
  for (const mode of ['ingest', 'http']) {
    if (only !== undefined && only !== mode) continue;
    const receiver = await startReceiver();
    const { expected, result, rejected } =
      mode === 'ingest' ? await soakIngest(receiver) : await soakHttp(receiver);
    await receiver.close();
    const runs = receiver.latest.runs;
    const rss = result.samples.map((s) => s.rssMiB).filter(Number.isFinite);
    const accounted = ['completed', 'failed', 'cancelled', 'abandoned'].every(
      (o) => (runs[o] ?? 0) === expected[o],
    );
    reports.push({
      mode,
      runs: RUNS,
      events: expected.events,
      seconds: result.seconds,
      eventsPerSecond: expected.events / result.seconds,
      peakRssMiB: Math.max(...rss),
      lastRssMiB: rss.at(-1),
      slopeMiBPerMinute: slope(result.samples),
      expected,
      observed: runs,
      rejected: receiver.latest.events.rejected ?? rejected ?? 0,
      accepted: receiver.latest.events.accepted ?? 0,
      ok: result.code === 0 && accounted && (receiver.latest.events.rejected ?? 0) === 0,
      // What a mismatch is read from: the bridge's exit, every event outcome, what it said.
      code: result.code,
      outcomes: receiver.latest.events,
      said: result.stderr
        .split('\n')
        .filter((l) => l.trim() !== '')
        .slice(-20),
    });
  }
  return reports;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const reports = await soakBench({ only: values.only });
  for (const r of reports) {
    console.log(
      `${r.mode}: ${r.runs.toLocaleString('en-US')} runs, ${r.events.toLocaleString('en-US')} events in ${r.seconds.toFixed(0)} s (${Math.round(r.eventsPerSecond).toLocaleString('en-US')}/s); RSS peak ${r.peakRssMiB.toFixed(0)} MiB, last ${r.lastRssMiB?.toFixed(0)} MiB, trend after warm-up ${r.slopeMiBPerMinute.toFixed(2)} MiB/min`,
    );
    console.log(
      `  runs expected ${JSON.stringify(r.expected)}\n  agent.runs     ${JSON.stringify(r.observed)}; events accepted ${r.accepted}, rejected ${r.rejected} → ${r.ok ? 'every run accounted for' : 'MISMATCH'}`,
    );
    if (!r.ok)
      console.log(
        `  exit ${r.code}; events by outcome ${JSON.stringify(r.outcomes)}; the bridge said:\n${r.said.map((l) => `    ${l}`).join('\n')}`,
      );
  }
  process.exitCode = reports.every((r) => r.ok) ? 0 : 1;
}
