import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A loopback port that was free a moment ago (for servers whose port must be named up front). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
