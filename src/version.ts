/** Instrumentation scope of everything the bridge emits. */
export const PACKAGE_NAME = 'agent-otel-bridge';
export const PACKAGE_VERSION = '0.1.0';

/** The semantic conventions the telemetry follows (docs/telemetry-contract.md), as a schema URL. */
export const SCHEMA_URL = 'https://opentelemetry.io/schemas/1.41.0';
