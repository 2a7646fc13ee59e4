// A loopback OTLP/HTTP receiver that accepts every request and discards it, counting bytes.
import { createServer } from 'node:http';

export async function startDiscardingReceiver() {
  const stats = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk) => (stats.bytes += chunk.length));
    req.on('end', () => {
      stats.requests += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${server.address().port}`,
    get requests() {
      return stats.requests;
    },
    get bytes() {
      return stats.bytes;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
