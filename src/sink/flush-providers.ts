import { diag } from '@opentelemetry/api';
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { PACKAGE_NAME } from '../version.js';

const log = diag.createComponentLogger({ namespace: PACKAGE_NAME });

interface Flushable {
  forceFlush?: () => Promise<unknown>;
  getDelegate?: () => unknown;
}

/** Flushes whatever providers the sink writes to (the API's global proxies included); never throws. */
export async function flushProviders(
  tracerProvider: TracerProvider,
  meterProvider: MeterProvider,
): Promise<void> {
  const targets = [tracerProvider as Flushable, meterProvider as Flushable].map((p) =>
    typeof p.getDelegate === 'function' ? (p.getDelegate() as Flushable) : p,
  );
  await Promise.all(
    targets.map(async (p) => {
      try {
        if (typeof p.forceFlush === 'function') await p.forceFlush();
      } catch (error) {
        log.warn('flush failed', error);
      }
    }),
  );
}
