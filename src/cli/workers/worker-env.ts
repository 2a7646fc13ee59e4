/**
 * The worker's environment: a `service.instance.id` set in OTEL_RESOURCE_ATTRIBUTES gets the
 * worker's suffix, so that the workers' cumulative metrics stay series of their own.
 */
export function workerEnv<E extends Readonly<Record<string, string | undefined>>>(
  env: E,
  k: number,
): E {
  const attributes = env['OTEL_RESOURCE_ATTRIBUTES'];
  if (attributes === undefined) return env;
  return {
    ...env,
    OTEL_RESOURCE_ATTRIBUTES: attributes.replace(
      /(^|,)(\s*service\.instance\.id\s*=\s*)([^,]*)/,
      (_all, start: string, key: string, value: string) => `${start}${key}${value.trim()}-w${k}`,
    ),
  };
}
