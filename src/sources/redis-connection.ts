import { createClient } from 'redis';

export type RedisClient = ReturnType<typeof newClient>;

/** How long the first connection is tried before the broker is said to be unreachable. */
const FIRST_CONNECT_MILLIS = 5000;
/** Longest pause between two tries to connect again. */
const MAX_BACKOFF_MILLIS = 2000;

/**
 * A Redis client connected to `url`. The first connection is tried for a few seconds (a broker
 * restarting as the bridge starts is waited for) and then fails, naming the URL: a broker that
 * cannot be reached at start is said, never waited for in silence, and a stop during the wait is
 * not ignored. Once connected, a lost connection is tried again with backoff for as long as the
 * client lives (the sources say the loss and the return).
 */
export async function connectRedis(
  url: string,
  firstConnectMillis = FIRST_CONNECT_MILLIS,
): Promise<RedisClient> {
  const started = Date.now();
  let connected = false;
  const client = newClient(url, firstConnectMillis, (retries, cause) => {
    if (!connected && Date.now() - started >= firstConnectMillis) return cause;
    return Math.min(50 * 2 ** Math.min(retries, 10), MAX_BACKOFF_MILLIS);
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    client.destroy();
    throw new Error(
      `cannot reach Redis at ${url} (tried for ${Math.round((Date.now() - started) / 1000)} s): ${(error as Error).message}`,
      { cause: error },
    );
  }
  connected = true;
  return client;
}

function newClient(
  url: string,
  connectTimeout: number,
  reconnectStrategy: (retries: number, cause: Error) => number | Error,
) {
  return createClient({ url, socket: { connectTimeout, reconnectStrategy } });
}
