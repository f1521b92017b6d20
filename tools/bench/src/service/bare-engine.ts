import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Renderer } from '@thumbforge/design-engine';
import sharp from 'sharp';
import { generateBody } from '../cluster/latency.js';
import { jobFromBody } from './render-job.js';

/**
 * The bare engine in a process of its own, like the servers it is compared with (and away from the
 * bench's HTTP clients and their garbage). Each line on stdin is a number of renders, of the bodies
 * `generateBody(0)`, `generateBody(1)`, … as a load run sends them; for each render it prints one JSON
 * line: `Renderer.render`'s time and sharp's default WebP encode of the same pixels.
 *
 * Run as a child of the bench: `node bare-engine.js`.
 */
const renderer = new Renderer();

async function renderOne(n: number): Promise<{ engineMs: number; defaultWebpMs: number }> {
  const job = jobFromBody(JSON.parse(generateBody(n)) as { title: string }, n);
  const started = performance.now();
  await renderer.render(job, {});
  const engineMs = performance.now() - started;
  const { canvas } = await renderer.compose(job, {});
  const encodeStarted = performance.now();
  await sharp(canvas.data, { raw: { width: canvas.width, height: canvas.height, channels: 3 } })
    .webp()
    .toBuffer();
  return { engineMs, defaultWebpMs: performance.now() - encodeStarted };
}

for await (const line of createInterface({ input: process.stdin })) {
  const timings = [];
  for (let n = 0; n < Number(line); n++) timings.push(await renderOne(n));
  process.stdout.write(`${JSON.stringify(timings)}\n`);
}
