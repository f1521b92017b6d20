import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, eventually, generate, startApp, type TestApp } from './support/app.js';
import { decode, pngDataUrl } from './support/images.js';
import { uploadsOnDisk } from './support/uploads.js';

/** Inline images are kept only for jobs that are accepted: a refusal leaves nothing in the private store. */
describe('inline uploads of refused jobs', () => {
  let app: TestApp;
  let photoImage: string;
  let logoImage: string;
  beforeAll(async () => {
    app = await startApp({ RATE_LIMITS: 'creator=1000,pro=1000' });
    photoImage = await pngDataUrl(160, 120, { r: 30, g: 90, b: 160, alpha: 1 });
    logoImage = await pngDataUrl(48, 48, { r: 240, g: 200, b: 20, alpha: 1 });
  });
  afterAll(() => app.close());

  const withImages = (title: string) => ({
    title,
    format: 'x',
    usePhoto: true,
    useLogo: true,
    photoImage,
    logoImage,
  });

  it('a creator account without credits: 429, and no upload of the refused job is kept', async () => {
    const a = admin(app.url);
    const account = await a.createAccount('creator');
    // Each job costs 14 (10 + 2 for the photo + 2 for the logo): 53 of them leave 8 of the 750 credits.
    const accepted = 53;
    for (let first = 0; first < accepted; first += 4) {
      const batch = Array.from({ length: Math.min(4, accepted - first) }, (_, i) =>
        generate(app.url, account.apiKey, withImages(`Spend ${first + i}`)),
      );
      for (const res of await Promise.all(batch)) expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const kept = uploadsOnDisk(app.dataDir).sort();
    // Both images of every accepted job are in the store: the check below looks in the right place.
    expect(kept).toHaveLength(2 * accepted);
    // A sync response follows the render; its capture is billing's next event and may come just after.
    await eventually(async () => (await a.account(account.accountId)).body.credits.reserved === 0);
    expect((await a.account(account.accountId)).body.credits).toMatchObject({ remaining: 8, reserved: 0 });

    const refused = await generate(app.url, account.apiKey, withImages('One too many'));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Generation limit exceeded', code: 'GENERATION_LIMIT_EXCEEDED' });
    expect(uploadsOnDisk(app.dataDir).sort()).toEqual(kept);
    expect((await a.account(account.accountId)).body.credits).toMatchObject({ remaining: 8, reserved: 0 });
  });

  it('a job whose saved assets are refused stores none of its inline images', async () => {
    const a = admin(app.url);
    const account = await a.createAccount('pro');
    const before = uploadsOnDisk(app.dataDir).sort();
    const res = await generate(app.url, account.apiKey, {
      ...withImages('Unknown reference set'),
      customAssetsId: 'ref_unknown',
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'customAssetsId not found', code: 'REFERENCE_SET_NOT_FOUND' });
    expect(uploadsOnDisk(app.dataDir).sort()).toEqual(before);
  });

  it("the public test key's placeholders are written once per format, model and encoding, not per request", async () => {
    const dir = join(app.dataDir, 'objects', 'public', 'users', 'public-test', 'placeholders');
    // A rewrite gives an image (or its metadata file) a new inode and modification time.
    const files = () =>
      readdirSync(dir)
        .sort()
        .map((name) => `${name} ${statSync(join(dir, name)).ino} ${statSync(join(dir, name)).mtimeMs}`);
    const variants = [
      { format: 'linkedin', outputFormat: 'png', width: 1200, height: 627 },
      { format: 'x', outputFormat: 'webp', width: 1200, height: 675 },
    ] as const;
    let first: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (const { format, outputFormat, width, height } of variants) {
        // The public test key is limited per address and second: each request in a second of its own.
        app.clock.advance(1000);
        const res = await generate(app.url, 'tf_test_public', {
          title: `Ping ${round}`,
          format,
          outputFormat,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(await decode(res.body.image)).toMatchObject({ format: outputFormat, width, height });
      }
      if (round === 0) first = files();
      expect(files()).toEqual(first);
    }
    const images = first.map((f) => f.split(' ')[0]).filter((name) => !name!.startsWith('.'));
    expect(images).toEqual(['linkedin-sd.png', 'x-sd.webp']);
  });
});
