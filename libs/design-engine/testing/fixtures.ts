import type { JobSpec } from '@thumbforge/contracts';
import { exampleJobSpec } from '@thumbforge/contracts/testing';
import sharp from 'sharp';

export function jobSpec(overrides: Partial<JobSpec> = {}): JobSpec {
  return exampleJobSpec({
    jobId: 'job_01KAZ0000000000000000000',
    generationId: 'gen_01KAZ0000000000000000000',
    accountId: 'acc_01KAZ0000000000000000000',
    title: 'I Tried Every AI Coding Tool So You Do Not Have To',
    category: 'tech-saas',
    requestedAt: '2026-04-27T14:30:00Z',
    ...overrides,
  });
}

/** A portrait "photo": a pure green field with a darker figure, so it is easy to find in a render. */
export function photoImage(): Promise<Buffer> {
  return sharp(
    Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="600" height="800">
      <rect width="600" height="800" fill="#00ff00"/>
      <circle cx="300" cy="300" r="120" fill="#00c800"/>
      <rect x="150" y="450" width="300" height="350" rx="80" fill="#00c800"/></svg>`),
  )
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** A solid magenta logo with a transparent margin. */
export function logoImage(): Promise<Buffer> {
  return sharp(
    Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">
      <rect x="4" y="4" width="192" height="92" rx="10" fill="#ff00ff"/></svg>`),
  )
    .png()
    .toBuffer();
}

export function solidImage(colour: string): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 36, channels: 3, background: colour } })
    .png()
    .toBuffer();
}

export interface Pixels {
  at(x: number, y: number): [number, number, number];
}

export async function pixels(image: Buffer): Promise<Pixels & { width: number; height: number }> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at(x, y) {
      const i = (Math.round(y) * info.width + Math.round(x)) * info.channels;
      return [data[i]!, data[i + 1]!, data[i + 2]!];
    },
  };
}

export function distance(a: [number, number, number], b: [number, number, number]): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}
