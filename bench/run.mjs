// `npm run bench`: every benchmark in one invocation, each against its baseline, as one table.
// `--smoke`: small sizes, one repeat, for CI (the figures then only prove the benchmarks still run).
// Run with node --expose-gc, after `npm run build`; the source benchmark needs NATS and Redis on
// loopback (skipped with a note when they are not there).
import os from 'node:os';
import { allocationsBench } from './allocations.mjs';
import { bigFileBench } from './big-file.mjs';
import { captureBench } from './capture.mjs';
import { brokersBench } from './brokers.mjs';
import { partitionsBench } from './partitions.mjs';
import { deltaStormBench } from './delta-storm.mjs';
import { handleJsonBench } from './handle-json.mjs';
import { inProcessBench } from './in-process.mjs';
import { ingestBench } from './ingest.mjs';
import { openRunsBench } from './open-runs.mjs';
import { reorderBench } from './reorder.mjs';
import { PIECES, scrubLinearBench } from './scrub-linear.mjs';
import { serveBench } from './serve.mjs';
import { stagesBench } from './stages.mjs';
import { LINES_AT_ONCE } from '../dist/sink/line-decoding.js';

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
      reorderRuns: 200,
      reorderStorm: 20_000,
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
      reorderRuns: 2000,
      reorderStorm: 200_000,
    };

const rows = [];
const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const row = (benchmark, bridge, baseline, ratio, target) =>
  rows.push({ benchmark, bridge, baseline, ratio, target });
const log = (line) => process.stderr.write(`${line}\n`);

log('1/6 in-process sink vs bare SDK…');
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

const lineCost = await handleJsonBench({
  lines: smoke ? 20_000 : 200_000,
  repeats: sizes.repeats,
});
row(
  `handleJson, CPU per line (${fmt(lineCost.lines)} behest lines, held by count as ingest holds them, shutdown included)`,
  `${lineCost.handleJson.toFixed(3)} µs`,
  `${lineCost.parse.toFixed(3)} µs JSON.parse`,
  `${(lineCost.handleJson / lineCost.parse).toFixed(2)}×`,
  '≤ 5×',
);
row(
  "  the same, into the lean spans of startTelemetry (the CLI's)",
  `${lineCost.handleJsonLean.toFixed(3)} µs`,
  `${lineCost.parse.toFixed(3)} µs JSON.parse`,
  `${(lineCost.handleJsonLean / lineCost.parse).toFixed(2)}×`,
  '≤ 5×',
);
row(
  `  the same, in slices of ${LINES_AT_ONCE} lines (handleJsonLines, as ingest takes them)`,
  `${lineCost.sliced.toFixed(3)} µs`,
  `${lineCost.parse.toFixed(3)} µs JSON.parse`,
  `${(lineCost.sliced / lineCost.parse).toFixed(2)}×`,
  '',
);
row(
  '  the behest line decoder alone (depth, parse, field checks, times)',
  `${lineCost.decode.toFixed(3)} µs`,
  `${lineCost.parse.toFixed(3)} µs JSON.parse`,
  `${(lineCost.decode / lineCost.parse).toFixed(2)}×`,
  '',
);

// The line path stage by stage, each timed whole in process (see bench/stages.mjs).
const lineStages = await stagesBench({ lines: smoke ? 20_000 : 200_000, repeats: sizes.repeats });
for (const [name, micros] of [
  [
    '  stage by stage: handleJson into no-op providers (identifiers, order, runs)',
    lineStages.mapping,
  ],
  ["  stage by stage: into the CLI's providers (lean spans, tallied metrics)", lineStages.spans],
  ['  stage by stage: and every span encoded to OTLP/protobuf', lineStages.encoded],
])
  row(
    name,
    `${micros.toFixed(3)} µs`,
    `${lineStages.parse.toFixed(3)} µs JSON.parse`,
    `${(micros / lineStages.parse).toFixed(2)}×`,
    '',
  );

const allocations = await allocationsBench({ runs: smoke ? 100 : 400 });
row(
  `heap allocated per event, handleJson (${fmt(allocations.lines)} behest lines)`,
  `${fmt(allocations.handleJson)} B`,
  `${fmt(allocations.parse)} B JSON.parse`,
  `${(allocations.handleJson / allocations.parse).toFixed(1)}×`,
  '',
);
row(
  `heap allocated per event, sink.handle (${fmt(allocations.events)} typed events)`,
  `${fmt(allocations.handle)} B`,
  `${fmt(allocations.bare)} B bare SDK`,
  `${(allocations.handle / allocations.bare).toFixed(2)}×`,
  '',
);

const capture = await captureBench({ runs: smoke ? 300 : 3000, repeats: sizes.repeats });
row(
  `handleJson with content capture on, lines/s (${fmt(capture.lines)} behest lines)`,
  fmt(capture.on),
  `${fmt(capture.off)} capture off`,
  `${(capture.on / capture.off).toFixed(2)}×`,
  '',
);

const linear = scrubLinearBench({ kib: smoke ? 256 : 1024, repeats: smoke ? 1 : 3 });
const worstLayer = linear.reduce((a, b) => (b.ratio > a.ratio ? b : a));
row(
  `scrub layers in linear time: worst full ÷ quarter of ${smoke ? '256 KiB' : '1 MiB'} adversarial text (${linear.length} layers × ${PIECES.length} pieces)`,
  `${worstLayer.ratio.toFixed(1)}× (${worstLayer.name}, ${JSON.stringify(worstLayer.piece)}, ${worstLayer.full.toFixed(0)} ms)`,
  'linear 4×, quadratic 16×',
  '',
  '≤ 10×',
);

log('2/6 NDJSON ingest end to end vs JSON.parse…');
const ingest = await ingestBench({ events: sizes.ingest, repeats: smoke ? 1 : 3 });
// Every stage of the export path against JSON.parse of the same lines, and where the time goes.
const vsParse = (rate) => `${(rate / ingest.parseEventsPerSecond).toFixed(2)}×`;
const parseBaseline = `${fmt(ingest.parseEventsPerSecond)} JSON.parse`;
row(
  `JSON.parse alone, lines/s (${fmt(ingest.events)} lines, in process)`,
  fmt(ingest.parseEventsPerSecond),
  '',
  '1.00×',
  '',
);
row(
  '  parse + validate (behest decoder, in process)',
  fmt(ingest.decodeEventsPerSecond),
  parseBaseline,
  vsParse(ingest.decodeEventsPerSecond),
  '',
);
row(
  '  ingest, export off (read, parse, validate, map; incl. start)',
  fmt(ingest.mapOnlyEventsPerSecond),
  parseBaseline,
  vsParse(ingest.mapOnlyEventsPerSecond),
  '',
);
row(
  `  ingest → discarding OTLP/protobuf receiver, one worker (${ingest.cpuMicrosPerEvent.toFixed(2)} CPU-µs/event)`,
  fmt(ingest.eventsPerSecond),
  parseBaseline,
  vsParse(ingest.eventsPerSecond),
  '≥ 0.25×',
);
for (const workers of [2, 4]) {
  const rate = ingest.workerEventsPerSecond[workers];
  const cpuRatio = ingest.workerCpuMicrosPerEvent[workers] / ingest.cpuMicrosPerEvent;
  row(
    `  same, --workers ${workers} (${(rate / ingest.eventsPerSecond).toFixed(2)}× one worker; ${ingest.workerCpuMicrosPerEvent[workers].toFixed(2)} CPU-µs/event, ${cpuRatio.toFixed(2)}× one worker's)`,
    fmt(rate),
    parseBaseline,
    vsParse(rate),
    workers === 2 ? '≥ 1.3× one worker, CPU ≤ 1.15×' : '',
  );
}
// A second worker's start, paid once per command: the part of the CPU ratio above that a longer
// input spreads thinner.
row(
  `  a second worker's start: --workers 2 on a 30-line file, over one worker (${((1e6 * ingest.workerStart.cpuSeconds) / ingest.events).toFixed(2)} CPU-µs per event of the file above)`,
  `+${ingest.workerStart.seconds.toFixed(3)} s`,
  `+${ingest.workerStart.cpuSeconds.toFixed(3)} CPU-s`,
  '',
  '',
);
row(
  `  the file's halves (by run) in two one-worker processes at once (${(ingest.pairEventsPerSecond / ingest.eventsPerSecond).toFixed(2)}× one worker; ${ingest.pairCpuMicrosPerEvent.toFixed(2)} CPU-µs/event, ${(ingest.pairCpuMicrosPerEvent / ingest.cpuMicrosPerEvent).toFixed(2)}× one worker's)`,
  fmt(ingest.pairEventsPerSecond),
  parseBaseline,
  vsParse(ingest.pairEventsPerSecond),
  '',
);
// What the machine gives the baseline's own work split the same way: the ceiling of the two rows
// above (their CPU figure is read against this one's).
const parsed = ingest.parseProcess;
row(
  `  the machine: JSON.parse of the file in one process, of its halves in two at once (${(parsed.pairEventsPerSecond / parsed.eventsPerSecond).toFixed(2)}×; ${parsed.pairCpuMicrosPerEvent.toFixed(2)} CPU-µs/event, ${(parsed.pairCpuMicrosPerEvent / parsed.cpuMicrosPerEvent).toFixed(2)}× one process's)`,
  fmt(parsed.pairEventsPerSecond),
  `${fmt(parsed.eventsPerSecond)} one process`,
  `${(parsed.pairEventsPerSecond / parsed.eventsPerSecond).toFixed(2)}×`,
  '',
);
// The remaining cost per event, stage by stage (differences of the rows above).
const micros = (rate) => 1e6 / rate;
const stages = [
  ['parse', micros(ingest.parseEventsPerSecond)],
  ['validate', micros(ingest.decodeEventsPerSecond) - micros(ingest.parseEventsPerSecond)],
  [
    'read + map + start',
    micros(ingest.mapOnlyEventsPerSecond) - micros(ingest.decodeEventsPerSecond),
  ],
  ['export', micros(ingest.eventsPerSecond) - micros(ingest.mapOnlyEventsPerSecond)],
];
row(
  '  cost per event, one worker',
  `${micros(ingest.eventsPerSecond).toFixed(2)} µs`,
  stages.map(([name, us]) => `${name} ${us.toFixed(2)}`).join(' + '),
  '',
  `≤ ${micros(ingest.parseEventsPerSecond * 0.25).toFixed(2)} µs`,
);

// serve on one thread and on worker threads, the load generator on the same machine.
const serve = await serveBench({
  events: sizes.ingest,
  workers: [1, 2, 4],
  repeats: smoke ? 1 : 3,
});
for (const workers of [1, 2, 4]) {
  const rate = serve.eventsPerSecond[workers];
  row(
    `serve, requests of 500 lines, --workers ${workers}, events/s (${fmt(serve.events)}; ${serve.cpuMicrosPerEvent[workers].toFixed(2)} CPU-µs/event)`,
    fmt(rate),
    `${fmt(serve.eventsPerSecond[1])} one worker`,
    `${(rate / serve.eventsPerSecond[1]).toFixed(2)}×`,
    '',
  );
}

log('3/6 text-delta storms…');
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

log('4/6 reordered and duplicated delivery…');
const reorder = reorderBench({
  runs: sizes.reorderRuns,
  stormDeltas: sizes.reorderStorm,
  repeats: sizes.repeats,
});
row(
  `reordered (±8 per run) + 5 % duplicates, CPU per event (${fmt(reorder.events)})`,
  `${reorder.cpuReordered.toFixed(3)} µs`,
  `${reorder.cpuInOrder.toFixed(3)} µs in order`,
  `${(reorder.cpuReordered / reorder.cpuInOrder).toFixed(2)}×`,
  '≤ 1.2×',
);
row(
  `  same, heap per open run, events held (${fmt(reorder.heapRuns)} runs)`,
  `${fmt(reorder.heapReordered / 1024, 2)} KiB`,
  `${fmt(reorder.heapInOrder / 1024, 2)} KiB in order`,
  `${(reorder.heapReordered / reorder.heapInOrder).toFixed(2)}×`,
  '≤ 1.2×',
);
row(
  `deltas sharing one timestamp, CPU per delta (${fmt(reorder.stormDeltas)})`,
  `${reorder.stormSame.toFixed(3)} µs`,
  `${reorder.stormDistinct.toFixed(3)} µs own timestamps`,
  `${(reorder.stormSame / reorder.stormDistinct).toFixed(2)}×`,
  '≤ 1.2×',
);

log('5/6 memory…');
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

log('6/6 sources…');
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
  // Partitions: a router and 1, 2 or 3 instances sharing 6 partitions, against one consumer
  // reading the stream directly; CPU-µs per event of all the bridge's processes beside each.
  const partitions = await partitionsBench({ events: sizes.broker });
  const cpu = (r) => `${r.cpuMicrosPerEvent.toFixed(1)} CPU-µs/event`;
  for (const broker of ['nats', 'redis']) {
    const name = broker === 'nats' ? 'NATS' : 'Redis';
    const direct = partitions[broker].direct;
    row(
      `  ${name} direct: one consumer, no router or partitions, events/s (${cpu(direct)})`,
      fmt(direct.eventsPerSecond),
      '',
      '',
      '',
    );
    for (const n of [0, 1, 2, 3]) {
      const r = partitions[broker][n];
      row(
        n === 0
          ? `  ${name} router alone, each copy stored, events/s (${cpu(r)})`
          : `  ${name} partitioned: router + ${n} instance(s), events/s (${cpu(r)})`,
        fmt(r.eventsPerSecond),
        `${fmt(direct.eventsPerSecond)} direct`,
        `${(r.eventsPerSecond / direct.eventsPerSecond).toFixed(2)}×`,
        '',
      );
    }
    for (const w of [2, 4]) {
      const r = partitions.workers[broker][w];
      row(
        `  ${name} partitioned: router + 1 instance --workers ${w}, events/s (${cpu(r)})`,
        fmt(r.eventsPerSecond),
        `${fmt(direct.eventsPerSecond)} direct`,
        `${(r.eventsPerSecond / direct.eventsPerSecond).toFixed(2)}×`,
        '',
      );
    }
  }
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
