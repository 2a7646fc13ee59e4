// Bundles the CLI and its worker threads (`npm run build`, after `tsc`): `dist/cli/main.js` and
// `dist/cli/workers/{ingest,serve}-worker.js`, with the code of the commands loaded on demand in
// chunks beside the workers. A process then loads about 30 files instead of about 930 (the
// OpenTelemetry SDK's and zod's modules among them), which is most of what starting the CLI, and
// each worker thread, costs. The library (`dist/index.js`) stays as `tsc` writes it, for the
// user's own bundler. The optional brokers' and gRPC clients and the price table stay packages,
// loaded from `node_modules` when a command needs them.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/cli`;

// The CLI's `tsc` output is replaced whole: nothing imports it but the entry points bundled here.
rmSync(out, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: [
    'src/cli/main.ts',
    'src/cli/workers/ingest-worker.ts',
    'src/cli/workers/serve-worker.ts',
  ],
  outbase: 'src/cli',
  outdir: out,
  entryNames: '[dir]/[name]',
  // Beside the workers: the code that starts a worker finds it next to itself.
  chunkNames: 'workers/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external: [
    '@nats-io/*',
    'redis',
    '@redis/*',
    '@grpc/*',
    '@opentelemetry/exporter-metrics-otlp-grpc',
    '@opentelemetry/exporter-trace-otlp-grpc',
    '@pydantic/genai-prices',
  ],
  // CommonJS code inside the bundle asks for `require`.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
