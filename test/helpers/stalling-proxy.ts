// A TCP proxy on loopback (port 0) whose way back to the client can be stalled: what the server
// sends meanwhile is kept, in order, and forwarded when the stall ends, as a congested path or a
// server too busy to write would deliver it. The client's way to the server is never stalled.
import { createServer, connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

export interface StallingProxy {
  readonly port: number;
  /** Keeps what the server sends from the client until `resume()`. */
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startStallingProxy(targetPort: number): Promise<StallingProxy> {
  let stalled = false;
  const backs: { client: Socket; kept: Buffer[] }[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    const back = { client, kept: [] as Buffer[] };
    backs.push(back);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (stalled) back.kept.push(chunk);
      else client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      for (const back of backs) for (const chunk of back.kept.splice(0)) back.client.write(chunk);
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
