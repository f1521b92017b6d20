import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface ReceivedWebhook {
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

/**
 * A local webhook receiver. `respond(n)` decides the n-th (1-based) delivery: a status to answer, or
 * 'hang' to never answer (the sender's timeout must fire).
 */
export async function startReceiver(respond: (attempt: number) => number | 'hang' = () => 200) {
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const decision = respond(received.length);
      if (decision === 'hang') return;
      res.writeHead(decision, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
