import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataUrlOf, hostileImages, type HostileImage } from '@thumbforge/imaging/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, generate, request, type Json } from './support/app.js';
import { decode } from './support/images.js';
import { startProcess, type ServiceProcess } from './support/process.js';
import { uploadsOnDisk } from './support/uploads.js';

/**
 * Peak resident memory the service may reach over the whole suite. An idle process holds about
 * 300 MB and the whole suite about 350 MB; before the pixel budget one 112-byte 10000x1 PNG drove it past 8 GB.
 */
const PEAK_RSS_BOUND_MB = 768;

/** VmHWM: the process's peak resident set since it started, as the kernel counts it. */
function peakRssMb(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error('no VmHWM in /proc status');
  return Number(match[1]) / 1024;
}

describe('hostile images as photo, logo and reference image, against the running process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tf-hostile-'));
  let service: ServiceProcess;
  let account: { accountId: string; apiKey: string };
  let images: HostileImage[];
  let accepted = 0;

  beforeAll(async () => {
    images = await hostileImages();
    service = await startProcess(dataDir, { RATE_LIMITS: 'business=1000' });
    account = await admin(service.url).createAccount('business');
  });
  afterAll(async () => {
    service.child.kill('SIGTERM');
    await service.exited;
  });

  it('sends at least 20 kinds of image', () => {
    expect(images.length).toBeGreaterThanOrEqual(20);
  });

  const expectAnswer = async (image: HostileImage, res: Json, field: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(image.expected);
    if (image.expected === 400) {
      expect(res.body.code).toBe('INVALID_IMAGE');
      expect(res.body.error).toMatch(new RegExp(`^${field} `));
      if (image.message) expect(res.body.error).toMatch(image.message);
    }
  };

  it.each(['photo', 'logo'] as const)(
    'each image as the %s: 200 with a real thumbnail, or 400 naming the reason',
    async (role) => {
      for (const image of images) {
        const field = `${role}Image`;
        const res = await generate(service.url, account.apiKey, {
          title: `Hostile ${role}: ${image.name}`,
          format: 'x',
          [role === 'photo' ? 'usePhoto' : 'useLogo']: true,
          [field]: dataUrlOf(image),
        });
        await expectAnswer(image, res, field);
        if (res.status === 200) {
          accepted++;
          expect(await decode(res.body.image), image.name).toMatchObject({
            format: 'webp',
            width: 1200,
            height: 675,
          });
        }
      }
    },
  );

  it('each image in a reference set: 201 and a 200 render, or 400 naming the reason', async () => {
    for (const image of images) {
      const created = await admin(service.url).call('POST', `/accounts/${account.accountId}/reference-sets`, {
        format: 'instagram',
        images: [dataUrlOf(image)],
      });
      if (image.expected === 400) {
        await expectAnswer(image, created, 'images\\[0\\]');
        continue;
      }
      expect(created.status, `${image.name}: ${JSON.stringify(created.body)}`).toBe(201);
      const res = await generate(service.url, account.apiKey, {
        title: `Hostile reference: ${image.name}`,
        customAssetsId: created.body.id,
      });
      expect(res.status, `${image.name}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(await decode(res.body.image)).toMatchObject({ format: 'webp', width: 1024, height: 1024 });
    }
  });

  it('stored only the uploads of accepted jobs', () => {
    expect(accepted).toBeGreaterThan(0);
    expect(uploadsOnDisk(dataDir)).toHaveLength(accepted);
  });

  it(`kept the process's peak RSS under ${PEAK_RSS_BOUND_MB} MB and left it serving`, async () => {
    const peak = peakRssMb(service.child.pid!);
    console.log(`hostile images: peak RSS ${peak.toFixed(0)} MB (bound ${PEAK_RSS_BOUND_MB} MB)`);
    expect(peak).toBeLessThan(PEAK_RSS_BOUND_MB);
    expect((await request(`${service.url}/health/ready`)).status).toBe(200);
  });
});
