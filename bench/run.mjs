// `npm run bench`: every benchmark in one invocation, each against its baseline, as one table.
// `--smoke`: small sizes, one repeat, for CI (the figures then only prove the benchmarks still run).
// Run with node --expose-gc, after `npm run build`; the source benchmark needs NATS and Redis on
// loopback (skipped with a note when they are not there).
import os from 'node:os';
import { bigFileBench } from './big-file.mjs';
import { brokersBench } from './brokers.mjs';
import { deltaStormBench } from './delta-storm.mjs';
import { inProcessBench } from './in-process.mjs';
import { ingestBench } from './ingest.mjs';
import { openRunsBench } from './open-runs.mjs';

const smoke = process.argv.includes('--smoke');
const sizes = smoke
  ? {
      runs: 200,
      repeats: 1,
      ingest: 20_000,
      stormRuns: 4,
      stormDeltas: 1000,
      openRuns: 5000,
      fileMiB: 16,
      heapMiB: 48,
      broker: 5000,
    }
  : {
      runs: 2000,
      repeats: 5,
      ingest: 200_000,
      stormRuns: 40,
      stormDeltas: 5000,
      openRuns: 100_000,
      fileMiB: 640,
      heapMiB: 64,
      broker: 150_000,
    };

const rows = [];
const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const row = (benchmark, bridge, baseline, ratio, target) =>
  rows.push({ benchmark, bridge, baseline, ratio, target });
const log = (line) => process.stderr.write(`${line}\n`);

log('1/5 in-process sink vs bare SDK…');
const inProcess = await inProcessBench({ runs: sizes.runs, repeats: sizes.repeats });
row(
  `sink.handle, CPU per event (${fmt(inProcess.events)} events)`,
  `${inProcess.bridge.toFixed(3)} µs`,
  `${inProcess.baseline.toFixed(3)} µs bare SDK`,
  `${(inProcess.bridge / inProcess.baseline).toFixed(2)}×`,
  '≤ 1.3×',
);
row(
  '  same, vs bare SDK counting events outside the SDK',
  `${inProcess.bridge.toFixed(3)} µs`,
  `${inProcess.tallied.toFixed(3)} µs`,
  `${(inProcess.bridge / inProcess.tallied).toFixed(2)}×`,
  '',
);

log('2/5 NDJSON ingest end to end vs JSON.parse…');
const ingest = await ingestBench({ events: sizes.ingest, repeats: smoke ? 1 : 3 });
row(
  `ingest → OTLP/protobuf, events/s (${fmt(ingest.events)} events, incl. start)`,
  fmt(ingest.eventsPerSecond),
  `${fmt(ingest.parseEventsPerSecond)} JSON.parse alone`,
  `${(ingest.parseEventsPerSecond / ingest.eventsPerSecond).toFixed(1)}× slower`,
  '≥ 150,000/s',
);

row(
  '  same, export off (read, parse, validate, map), events/s',
  fmt(ingest.mapOnlyEventsPerSecond),
  `${fmt(ingest.decodeEventsPerSecond)} parse + validate alone`,
  `${(ingest.decodeEventsPerSecond / ingest.mapOnlyEventsPerSecond).toFixed(1)}× slower`,
  '',
);

log('3/5 text-delta storms…');
const storm = deltaStormBench({
  runs: sizes.stormRuns,
  deltas: sizes.stormDeltas,
  repeats: sizes.repeats,
});
row(
  `delta storm, CPU per delta (${fmt(storm.deltas)} deltas)`,
  `${storm.microsPerDelta.toFixed(3)} µs`,
  '',
  '',
  '≤ 0.5 µs',
);
row('  heap retained per delta', `${storm.retainedBytesPerDelta.toFixed(2)} B`, '', '', '0');

log('4/5 memory…');
const open = await openRunsBench({ runs: sizes.openRuns });
row(
  `heap per open run (${fmt(open.runs)} open runs)`,
  `${fmt(open.bytesPerRun / 1024, 2)} KiB`,
  `${fmt(open.baselineBytesPerRun / 1024, 2)} KiB bare SDK`,
  `${(open.bytesPerRun / open.baselineBytesPerRun).toFixed(2)}×`,
  '≤ 4 KiB',
);
const big = await bigFileBench({ fileMiB: sizes.fileMiB, heapMiB: sizes.heapMiB });
row(
  `peak RSS, ${fmt(big.fileMiB)} MiB file, heap capped at ${big.heapMiB} MiB`,
  `${fmt(big.maxRssMiB)} MiB`,
  `${fmt(big.fileMiB)} MiB input`,
  `${(big.maxRssMiB / big.fileMiB).toFixed(2)}×`,
  'flat',
);

log('5/5 sources…');
try {
  const brokers = await brokersBench({ events: sizes.broker });
  const vsIngest = (n) => `${(n / ingest.eventsPerSecond).toFixed(2)}×`;
  row(
    `NATS JetStream → OTLP, acked, events/s (${fmt(brokers.events)})`,
    fmt(brokers.natsEventsPerSecond),
    `${fmt(ingest.eventsPerSecond)} file ingest`,
    vsIngest(brokers.natsEventsPerSecond),
    '',
  );
  row(
    `Redis Streams → OTLP, acked, events/s (${fmt(brokers.events)})`,
    fmt(brokers.redisEventsPerSecond),
    `${fmt(ingest.eventsPerSecond)} file ingest`,
    vsIngest(brokers.redisEventsPerSecond),
    '',
  );
} catch (error) {
  row('sources', `skipped: ${error instanceof Error ? error.message : String(error)}`, '', '', '');
}

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(
  `agent-otel-bridge benchmarks${smoke ? ' (smoke sizes)' : ''}: node ${process.version}, ${os.cpus().length} × ${cpu}, ${new Date().toISOString().slice(0, 10)}\n`,
);
const headers = {
  benchmark: 'benchmark',
  bridge: 'bridge',
  baseline: 'baseline',
  ratio: 'ratio',
  target: 'target',
};
const widths = Object.fromEntries(
  Object.keys(headers).map((k) => [k, Math.max(...[headers, ...rows].map((r) => r[k].length))]),
);
const line = (r) =>
  `| ${Object.keys(headers)
    .map((k) => r[k].padEnd(widths[k]))
    .join(' | ')} |`;
console.log(line(headers));
console.log(
  `|${Object.keys(headers)
    .map((k) => '-'.repeat(widths[k] + 2))
    .join('|')}|`,
);
for (const r of rows) console.log(line(r));
