import { createServer, type Socket } from 'node:net';

export interface RefusedConnections {
  /** Connections attempted since the port was taken. */
  readonly attempts: number;
  /** Frees the port, e.g. for `startServer`. */
  close(): Promise<void>;
}

/**
 * Stands in for a stopped server on its port: every connection is reset as soon as it is accepted, so
 * a client fails at once as it does against a closed port, and every attempt is counted. The count
 * shows whether a client tried the server at all, which a closed port cannot: a call refused by an
 * open circuit breaker never connects.
 */
export async function refuseConnections(port: number, host = '127.0.0.1'): Promise<RefusedConnections> {
  let attempts = 0;
  const server = createServer((socket: Socket) => {
    attempts += 1;
    socket.on('error', () => undefined);
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    get attempts() {
      return attempts;
    },
    close: () => (closing ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}
