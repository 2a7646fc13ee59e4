import type { MeterProvider } from '@opentelemetry/api';

/**
 * One `T` per meter provider, made on first use and shared by every sink writing to it: an
 * observable instrument's callbacks must not report one attribute set twice.
 */
export function perMeterProvider<T extends object>(): (
  meterProvider: MeterProvider,
  create: () => T,
) => T {
  const made = new WeakMap<MeterProvider, T>();
  return (meterProvider, create) => {
    let found = made.get(meterProvider);
    if (found === undefined) {
      found = create();
      made.set(meterProvider, found);
    }
    return found;
  };
}
