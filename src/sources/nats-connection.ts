import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * A NATS connection to `url`. The first connection fails at once when nothing answers, naming
 * the URL (a broker that cannot be reached at start is said); once connected, a lost connection
 * is tried again for as long as the connection lives (the sources say the loss and the return).
 */
export async function connectNats(
  url: string,
  name = 'agent-otel-bridge',
): Promise<NatsConnection> {
  try {
    return await connect({ servers: url, maxReconnectAttempts: -1, name, noAsyncTraces: true });
  } catch (error) {
    throw new Error(`cannot reach NATS at ${url}: ${(error as Error).message}`, { cause: error });
  }
}
