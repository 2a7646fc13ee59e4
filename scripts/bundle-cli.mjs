// Bundles the CLI and its worker threads (`npm run build`, after `tsc`): `dist/cli/main.js` and
// `dist/cli/workers/{ingest,serve}-worker.js`, with the code of the commands loaded on demand in
// chunks beside the workers. A process then loads about 30 files instead of about 930 (the
// OpenTelemetry SDK's and zod's modules among them), which is most of what starting the CLI, and
// each worker thread, costs. The library (`dist/index.js`) stays as `tsc` writes it, for the
// user's own bundler. The optional brokers' and gRPC clients and the price table stay packages,
// loaded from `node_modules` when a command needs them.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * The OTLP exporters' HTTP transport loads `http` and `https` with `import()` on its first export.
 * Importing a built-in module as ES module reads every export of it, and `http`'s include lazy
 * getters that load Node's whole fetch implementation (about 17 ms of CPU, in every process and
 * worker thread). Required, the same modules come without it.
 */
const HTTP_IMPORT = /\bimport\((['"])(https?)\1\)/;

const httpRequired = {
  name: 'http-required',
  setup(bundle) {
    bundle.onLoad(
      { filter: /[\\/]@opentelemetry[\\/]otlp-exporter-base[\\/].*\.[cm]?js$/ },
      async ({ path }) => {
        const source = await readFile(path, 'utf8');
        if (!HTTP_IMPORT.test(source)) return undefined;
        const everywhere = new RegExp(HTTP_IMPORT.source, 'g');
        return {
          contents: source.replace(everywhere, 'Promise.resolve(require($1$2$1))'),
          loader: 'js',
        };
      },
    );
  },
};

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
  plugins: [httpRequired],
  logLevel: 'warning',
});

// A later version of the exporters that loads `http` another way is caught here, not in a slow start.
for (const file of readdirSync(out, { recursive: true }))
  if (file.endsWith('.js') && HTTP_IMPORT.test(readFileSync(`${out}/${file}`, 'utf8')))
    throw new Error(`dist/cli/${file}: http or https imported as ES module (see httpRequired)`);
