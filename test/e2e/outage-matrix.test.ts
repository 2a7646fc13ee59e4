// Every finite and serving mode through every kind of collector outage: `ingest` of a file, of
// stdin and `--follow`, and `serve`, each against a collector that refuses connections for 20 s
// (from its first export on), answers 503 for 10 s, answers 429 with Retry-After, answers slowly,
// or is down when the bridge starts. Each ends with every span the healthy run made at the
// collector, exit 0 and `delivered N of N spans`. (nats and redis: collector-faults.test.ts and
// brokers.test.ts; what is not delivered within the hold: ingest-outage.test.ts.)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { runCli, startCli } from '../helpers/cli.js';
import type { CliResult } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/wire-spans.js';

const LINES = createDemoLines(40, Date.UTC(2025, 5, 1, 12));
const dir = mkdtempSync(join(tmpdir(), 'outage-matrix-'));
const LOG = join(dir, 'runs.ndjson');
writeFileSync(LOG, `${LINES.join('\n')}\n`);

/** Short exporter timeouts and batch delays, so that each outage is met by several retries. */
const ENV = { OTEL_EXPORTER_OTLP_TIMEOUT: '2000', OTEL_BSP_SCHEDULE_DELAY: '200' };

interface Fault {
  /** Arms the fault on a receiver before the bridge starts. */
  arm(receiver: OtlpReceiver): void | Promise<void>;
  /** The least a run through it takes: the proof that the bridge met the fault. */
  readonly lastsMillis: number;
}

const later = (millis: number, action: () => unknown) => {
  setTimeout(() => void action(), millis);
};

const FAULTS: [string, Fault][] = [
  [
    'connections refused for 20 s from the first export',
    {
      lastsMillis: 20_000,
      arm: () => undefined, // see receiverFor: the first request closes the listener
    },
  ],
  [
    '503 for 10 s',
    {
      lastsMillis: 10_000,
      arm: (r) => {
        r.refusing = { status: 503 };
        later(10_000, () => (r.refusing = undefined));
      },
    },
  ],
  [
    '429 with Retry-After for 6 s',
    {
      lastsMillis: 6000,
      arm: (r) => {
        r.refusing = { status: 429, retryAfterSeconds: 1 };
        later(6000, () => (r.refusing = undefined));
      },
    },
  ],
  [
    'every answer 1.5 s late',
    {
      lastsMillis: 1500,
      arm: (r) => {
        r.delayMillis = 1500;
      },
    },
  ],
  [
    // The outage of the field report, from the first export on: 44 s, shorter than the hold
    // (60 s) in all, so nothing is lost.
    'refused 20 s, then 503 for 10 s, then 429 for 14 s',
    {
      lastsMillis: 44_000,
      arm: () => undefined, // see receiverFor
    },
  ],
  [
    'down at start for 5 s',
    {
      lastsMillis: 5000,
      arm: async (r) => {
        await r.stopListening();
        later(5000, () => r.listenAgain());
      },
    },
  ],
];

/**
 * A receiver; for the refusal faults, one that stops listening for 20 s at its first request
 * (then, for the 44 s one, answers 503 for 10 s and 429 for 14 s).
 */
async function receiverFor(faultName: string): Promise<OtlpReceiver> {
  let armed = faultName.startsWith('connections refused') || faultName.startsWith('refused 20 s');
  const more = faultName.startsWith('refused 20 s');
  const receiver: OtlpReceiver = await startOtlpReceiver({
    onRequest() {
      if (!armed) return;
      armed = false;
      void receiver.stopListening().then(() =>
        later(20_000, async () => {
          await receiver.listenAgain();
          if (!more) return;
          receiver.refusing = { status: 503 };
          later(10_000, () => (receiver.refusing = { status: 429, retryAfterSeconds: 2 }));
          later(24_000, () => (receiver.refusing = undefined));
        }),
      );
    },
  });
  return receiver;
}

type Mode = (receiver: OtlpReceiver, expected: ReadonlySet<string>) => Promise<CliResult>;

const env = (receiver: OtlpReceiver) => ({ ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
const allThere = (receiver: OtlpReceiver, expected: ReadonlySet<string>) => () => {
  const seen = new Set(receiver.spans.map((s) => s.spanId));
  return [...expected].every((id) => seen.has(id));
};

const MODES: [string, Mode][] = [
  ['ingest FILE', (receiver) => runCli(['ingest', LOG], env(receiver))],
  ['ingest (stdin)', (receiver) => runCli(['ingest'], env(receiver), `${LINES.join('\n')}\n`)],
  [
    'ingest --follow',
    async (receiver, expected) => {
      const cli = startCli(['ingest', '--follow', LOG], env(receiver));
      try {
        // A followed file never ends: every run of this one finishes, so wait for all of them.
        await waitFor(allThere(receiver, expected), 60_000, 'every run through the outage');
        return await cli.stop('SIGTERM');
      } finally {
        await cli.stop('SIGKILL');
      }
    },
  ],
  [
    'serve',
    async (receiver) => {
      // The outage may outlast the default grace (10 s) at shutdown: this server is given longer.
      const cli = startCli(['serve', '--port', '0', '--grace-ms', '60000'], env(receiver));
      try {
        await cli.waitForStderr(/listening on (http:\/\/\S+)\/v1\/events/);
        const url = /listening on (http:\/\/\S+)\/v1\/events/.exec(cli.stderr())![1]!;
        // A client that retries a refused request after its Retry-After (at most 1 s here).
        for (let i = 0; i < LINES.length; i += 50) {
          const body = LINES.slice(i, i + 50).join('\n');
          for (;;) {
            const response = await fetch(`${url}/v1/events`, {
              method: 'POST',
              headers: { 'content-type': 'application/x-ndjson' },
              body,
            });
            if (response.status === 200) break;
            if (response.status !== 503 && response.status !== 429)
              throw new Error(`serve answered ${response.status}: ${await response.text()}`);
            const after = Number(response.headers.get('retry-after') ?? '1');
            await new Promise((r) => setTimeout(r, Math.min(after, 1) * 1000));
          }
        }
        return await cli.stop('SIGTERM');
      } finally {
        await cli.stop('SIGKILL');
      }
    },
  ],
];

let expected: ReadonlySet<string>;

beforeAll(async () => {
  const healthy = await startOtlpReceiver();
  try {
    const result = await runCli(['ingest', LOG], env(healthy));
    if (result.code !== 0) throw new Error(`the healthy run failed: ${result.stderr}`);
    expected = new Set(healthy.spans.map((s) => s.spanId));
  } finally {
    await healthy.close();
  }
}, 60_000);

describe.concurrent('collector outages in every mode', () => {
  for (const [modeName, mode] of MODES) {
    for (const [faultName, fault] of FAULTS) {
      it(`${modeName}: ${faultName}: every span delivered, and said`, async ({ expect }) => {
        expect(expected.size).toBeGreaterThan(100);
        const receiver = await receiverFor(faultName);
        try {
          const started = Date.now();
          await fault.arm(receiver);
          const result = await mode(receiver, expected);
          expect(Date.now() - started).toBeGreaterThanOrEqual(fault.lastsMillis);
          expect(result.code, result.stderr).toBe(0);
          await waitFor(allThere(receiver, expected), 5000, 'every span at the collector');
          expect(new Set(receiver.spans.map((s) => s.spanId))).toEqual(expected);
          expect(result.stdout).toContain(`delivered ${expected.size} of ${expected.size} spans`);
          expect(result.stderr).not.toContain('not delivered');
        } finally {
          await receiver.close();
        }
      }, 120_000);
    }
  }
});
