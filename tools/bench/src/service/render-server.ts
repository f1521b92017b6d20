import { createServer, type IncomingMessage } from 'node:http';
import { availableParallelism } from 'node:os';
import type { JobSpec } from '@thumbforge/contracts';
import { Renderer, type RenderedImage } from '@thumbforge/design-engine';
import { Piscina } from 'piscina';
import { jobFromBody } from './render-job.js';

/**
 * The render-only baseline: the design engine behind a bare HTTP handler, with no log, projections
 * or object store. It answers like the service does (JSON with the image as a data URI), so the two
 * differ only in what the service adds. `inline` renders on the main thread, where sharp's encode
 * already runs on libuv's threads; `pool` renders in piscina worker threads, one per core.
 *
 * Run as a child of the bench: `node render-server.js inline|pool`; it prints `{"port":N}`.
 */
type Render = (job: JobSpec) => Promise<RenderedImage>;

function renderFor(kind: string): Render {
  if (kind === 'inline') {
    const renderer = new Renderer();
    return (job) => renderer.render(job, {});
  }
  if (kind === 'pool') {
    const threads = availableParallelism();
    const pool = new Piscina<JobSpec, RenderedImage>({
      filename: new URL('./render-worker.js', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
    });
    return (job) => pool.run(job);
  }
  throw new Error(`unknown render server kind ${kind}: inline or pool`);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const render = renderFor(process.argv[2] ?? 'inline');
let served = 0;
const server = createServer((req, res) => {
  readBody(req)
    .then(async (text) => {
      const result = await render(jobFromBody(JSON.parse(text) as { title: string }, served++));
      const image = Buffer.from(result.image);
      const body = JSON.stringify({
        image: `data:image/webp;base64,${image.toString('base64')}`,
        dimensions: { width: result.width, height: result.height },
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    })
    .catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
