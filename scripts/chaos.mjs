// `npm run chaos -- --seeds N [--seed S] [--faults F] [--broker nats|redis] [--span-queue Q]`: runs the randomized
// fault test (test/e2e/chaos.test.ts) over N seeded schedules per broker, starting at seed S, and
// appends one line per schedule that held every invariant to chaos-report.txt. A failing seed
// stops nothing: vitest reports it with what every process said, and `--seed` replays it.
// `--span-queue Q`: every bridge's span export queue holds Q spans (OTEL_BSP_MAX_QUEUE_SIZE), its
// batches a quarter of that, so that runs' spans wait for room in it while faults strike.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '100' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    faults: { type: 'string', default: '4' },
    broker: { type: 'string' },
    'span-queue': { type: 'string', default: '0' },
  },
});
for (const [name, value] of Object.entries({
  seeds: values.seeds,
  seed: values.seed,
  faults: values.faults,
  'span-queue': values['span-queue'],
}))
  if (!/^\d+$/.test(value)) {
    console.error(`chaos: --${name} expects a whole number, got ${JSON.stringify(value)}`);
    process.exit(2);
  }
const filter =
  values.broker === undefined ? [] : ['-t', values.broker === 'nats' ? 'NATS' : 'Redis'];
console.log(
  `chaos: ${values.seeds} seeds per broker from ${values.seed}, ${values.faults} faults each${values['span-queue'] === '0' ? '' : `, span queue ${values['span-queue']}`}; results in chaos-report.txt`,
);
const run = spawnSync(
  'npx',
  ['vitest', 'run', 'test/e2e/chaos.test.ts', '--testTimeout', '600000', ...filter],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      CHAOS_SEEDS: values.seeds,
      CHAOS_SEED: values.seed,
      CHAOS_FAULTS: values.faults,
      CHAOS_REPORT: 'chaos-report.txt',
      CHAOS_HOG: '1',
      CHAOS_SPAN_QUEUE: values['span-queue'],
    },
  },
);
process.exit(run.status ?? 1);
