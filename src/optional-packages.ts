// Clients only some features need are optional peer dependencies, so that the library and the
// file, HTTP and demo commands install small: the NATS and Redis clients (the `nats`, `redis` and
// `route` commands, checkpoints and partitions on them) and the OTLP/gRPC exporters. Whoever uses
// one installs it; until then the feature says what to install instead of failing on an import.
import { createRequire } from 'node:module';
import { ConfigError } from './config.js';

/** Each optional feature, what it is called in a message, and the packages it loads. */
export const OPTIONAL_FEATURES = {
  nats: {
    what: 'the NATS client',
    packages: ['@nats-io/transport-node', '@nats-io/jetstream', '@nats-io/kv'],
  },
  redis: { what: 'the Redis client', packages: ['redis'] },
  grpc: {
    what: 'the OTLP/gRPC exporters',
    plural: true,
    packages: [
      '@opentelemetry/exporter-trace-otlp-grpc',
      '@opentelemetry/exporter-metrics-otlp-grpc',
    ],
  },
} as const satisfies Record<string, { what: string; plural?: true; packages: readonly string[] }>;

export type OptionalFeature = keyof typeof OPTIONAL_FEATURES;

const require = createRequire(import.meta.url);

/** A feature used without its packages installed: says which to install (a usage error). */
export class MissingPackageError extends ConfigError {
  constructor(
    readonly feature: OptionalFeature,
    readonly missing: readonly string[],
  ) {
    const known: { what: string; plural?: true; packages: readonly string[] } =
      OPTIONAL_FEATURES[feature];
    const [is, it] = known.plural === true ? ['are', 'them'] : ['is', 'it'];
    super(
      `${known.what} ${is} not installed (${missing.join(', ')} missing); install ${it} beside agent-otel-bridge: npm install ${known.packages.map(withRange).join(' ')}`,
    );
  }
}

/** The feature's packages that cannot be found from here. */
export function missingPackages(feature: OptionalFeature): string[] {
  return OPTIONAL_FEATURES[feature].packages.filter((name) => {
    try {
      import.meta.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

/** Throws a {@link MissingPackageError} unless every package of the feature is installed. */
export function assertInstalled(feature: OptionalFeature): void {
  const missing = missingPackages(feature);
  if (missing.length > 0) throw new MissingPackageError(feature, missing);
}

/** The feature's module, loaded synchronously once the feature is known to be installed. */
export function requireOptional<T>(feature: OptionalFeature, name: string): T {
  assertInstalled(feature);
  return require(name) as T;
}

/** A module of the bridge that imports the feature's packages, once they are known installed. */
export async function importWithFeature<T>(
  feature: OptionalFeature,
  load: () => Promise<T>,
): Promise<T> {
  assertInstalled(feature);
  return load();
}

/** This package's manifest, found upwards of this module (built as it is, or bundled deeper). */
function ownManifest(): { peerDependencies?: Record<string, string> } | undefined {
  for (const path of ['../package.json', '../../package.json', '../../../package.json']) {
    try {
      const manifest = require(path) as {
        name?: string;
        peerDependencies?: Record<string, string>;
      };
      if (manifest.name === 'agent-otel-bridge') return manifest;
    } catch {
      // Not there: one level up.
    }
  }
  return undefined;
}

/** `name@range` as this package declares the peer (the bare name when it cannot tell). */
function withRange(name: string): string {
  const range = ownManifest()?.peerDependencies?.[name];
  return range === undefined ? name : `"${name}@${range}"`;
}
