/** Instrumentation scope of everything the bridge emits. */
export const PACKAGE_NAME = 'agent-otel-bridge';
export const PACKAGE_VERSION = '0.1.0';
