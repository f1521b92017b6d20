import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP status to answer with, or `hang` to never answer. */
export type Reply = number | 'hang';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** TCP connections accepted, whether or not a request followed. */
  connections(): number;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 answering its requests with `replies` in turn (the last one repeats). */
export async function startReceiver(replies: Reply[]): Promise<Receiver> {
  const received: Received[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = replies[Math.min(received.length, replies.length) - 1]!;
      if (reply === 'hang') return;
      res.statusCode = reply;
      res.end(reply < 300 ? 'thanks' : 'nope');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/thumbforge`,
    received,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
