import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admin, generate, request } from '../support/http.js';
import { bombPngDataUrl, decode, jpegDataUrl, noisyPngDataUrl, pngDataUrl } from '../support/images.js';
import { periodReset, type ApiTarget } from './target.js';

/**
 * Spec §4, §5, §7 and DESIGN §4: every validation rule and status code, in the order of the checks.
 * `start` must allow at least 1000 requests per second for free, creator and business keys.
 */
export function contractChecks(start: () => Promise<ApiTarget>): void {
  let t: ApiTarget;
  let business: { accountId: string; apiKey: string };
  let free: { accountId: string; apiKey: string };
  let creator: { accountId: string; apiKey: string };
  let photo: string;

  beforeAll(async () => {
    t = await start();
    const a = admin(t.url);
    business = await a.createAccount('business');
    free = await a.createAccount('free');
    creator = await a.createAccount('creator');
    photo = await pngDataUrl(80, 80);
  });
  afterAll(() => t?.close());
  beforeEach(() => t.tick());

  const ok = { title: 'Ten Habits That Changed My Mornings', format: 'youtube' };

  describe('authentication (spec §5)', () => {
    it('401 Missing API key without x-api-key', async () => {
      const res = await generate(t.url, null, ok);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Missing API key', code: 'MISSING_API_KEY' });
    });
    it('401 Invalid API key for an unknown key', async () => {
      const res = await generate(t.url, 'tf_live_00000000000000000000000000000000', ok);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Invalid API key', code: 'INVALID_API_KEY' });
    });
    it('accepts Authorization: Bearer from older clients', async () => {
      const res = await generate(t.url, null, ok, { authorization: `Bearer ${business.apiKey}` });
      expect(res.status).toBe(200);
    });
    it('403 API access not enabled when the account lacks it', async () => {
      const noApi = await admin(t.url).createAccount('pro', false);
      const res = await generate(t.url, noApi.apiKey, ok);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'API access not enabled', code: 'API_ACCESS_DISABLED' });
    });
    it('authenticates before validating: a bad body without a key is still 401', async () => {
      expect((await generate(t.url, null, { title: '' })).status).toBe(401);
    });
    it('key rotation: the old key is refused at once, the new one works', async () => {
      const account = await admin(t.url).createAccount('pro');
      const rotated = await admin(t.url).call('POST', `/accounts/${account.accountId}/api-keys`);
      expect(rotated.status).toBe(201);
      expect(rotated.body.apiKey).toMatch(/^tf_live_[0-9A-Za-z]{32}$/);
      expect((await generate(t.url, account.apiKey, ok)).status).toBe(401);
      expect((await generate(t.url, rotated.body.apiKey, ok)).status).toBe(200);
    });
  });

  describe('body validation: 400 with a message (spec §4 rules 1-3, 5)', () => {
    it.each([
      [{ format: 'youtube' }, 'title is required'],
      [{ title: '', format: 'youtube' }, 'title is required'],
      [{ title: 'x'.repeat(201), format: 'youtube' }, 'title must be at most 200 characters'],
      [{ title: 7, format: 'youtube' }, 'title must be a string'],
      [{ title: 'a' }, 'format must be one of youtube, instagram, x, blogpost, linkedin'],
      [{ title: 'a', format: 'Youtube' }, 'format must be one of youtube, instagram, x, blogpost, linkedin'],
      [{ title: 'a', format: 'yt' }, 'format must be one of youtube, instagram, x, blogpost, linkedin'],
      [{ title: 'a', format: 'youtube', category: 'pets' }, 'category must be one of'],
      [{ title: 'a', format: 'youtube', usePhoto: 'yes' }, 'usePhoto must be a boolean'],
      [{ title: 'a', format: 'youtube', useLogo: 1 }, 'useLogo must be a boolean'],
      [{ title: 'a', format: 'youtube', model: 'xl' }, 'model must be one of sd, hd'],
      [{ title: 'a', format: 'youtube', outputFormat: 'gif' }, 'outputFormat must be one of webp, png'],
      [
        { title: 'a', format: 'youtube', webhookUrl: 'not a url' },
        'webhookUrl must be an absolute http or https URL',
      ],
      [{ title: 'a', format: 'youtube', imageStyle: 'cartoon' }, 'imageStyle must be one of'],
    ])('%j → "%s"', async (body, message) => {
      const res = await generate(t.url, business.apiKey, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(message);
      expect(res.body.code).toBe('INVALID_REQUEST');
    });

    it('title of exactly 200 characters is accepted', async () => {
      expect((await generate(t.url, business.apiKey, { ...ok, title: 'y'.repeat(200) })).status).toBe(200);
    });

    it('400 for malformed JSON', async () => {
      const res = await request(`${t.url}/v1/generate`, {
        method: 'POST',
        headers: { 'x-api-key': business.apiKey, 'content-type': 'application/json' },
        body: '{"title": "broken",',
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Malformed JSON body', code: 'INVALID_JSON' });
    });

    it('400 for a body that is not a JSON object, or sent without Content-Type: application/json', async () => {
      const arr = await request(`${t.url}/v1/generate`, {
        method: 'POST',
        headers: { 'x-api-key': business.apiKey },
        json: [ok],
      });
      expect(arr.status).toBe(400);
      const text = await request(`${t.url}/v1/generate`, {
        method: 'POST',
        headers: { 'x-api-key': business.apiKey, 'content-type': 'text/plain' },
        body: JSON.stringify(ok),
      });
      expect(text.status).toBe(400);
      expect(text.body.error).toContain('Content-Type: application/json');
    });

    it('413 for a body over 6 MB', async () => {
      const res = await generate(t.url, business.apiKey, {
        ...ok,
        padding: 'x'.repeat(6 * 1024 * 1024 + 10),
      });
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('ignores unknown fields', async () => {
      const res = await generate(t.url, business.apiKey, { ...ok, colour: 'teal', nested: { deep: true } });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('colour');
    });

    it('400 for a photoImage over 2 MB and a logoImage over 1 MB (decoded size)', async () => {
      const bigPhoto = await noisyPngDataUrl(2.2 * 1024 * 1024);
      const photoRes = await generate(t.url, business.apiKey, {
        ...ok,
        usePhoto: true,
        photoImage: bigPhoto,
      });
      expect(photoRes.status).toBe(400);
      expect(photoRes.body).toMatchObject({ code: 'IMAGE_TOO_LARGE' });
      expect(photoRes.body.error).toContain('photoImage');
      const bigLogo = await noisyPngDataUrl(1.1 * 1024 * 1024);
      const logoRes = await generate(t.url, business.apiKey, { ...ok, useLogo: true, logoImage: bigLogo });
      expect(logoRes.status).toBe(400);
      expect(logoRes.body.error).toContain('logoImage');
    });

    it.each([
      ['a decompression bomb', () => bombPngDataUrl()],
      ['truncated base64', async () => (await pngDataUrl()).slice(0, -17)],
      [
        'a non-image data URL',
        async () => `data:text/plain;base64,${Buffer.from('hello').toString('base64')}`,
      ],
      [
        'text claiming to be a PNG',
        async () => `data:image/png;base64,${Buffer.from('definitely not a png').toString('base64')}`,
      ],
      ['a plain URL instead of a data URL', async () => 'https://example.com/me.png'],
    ])('400 for %s as photoImage, and the service stays up', async (_name, make) => {
      const res = await generate(t.url, business.apiKey, { ...ok, usePhoto: true, photoImage: await make() });
      expect(res.status).toBe(400);
      expect(['INVALID_IMAGE', 'IMAGE_TOO_LARGE']).toContain(res.body.code);
      expect((await request(`${t.url}/health/live`)).status).toBe(200);
    });
  });

  describe('plan features: 403 (spec §4 rule 7, §7)', () => {
    it.each([['free'], ['creator']] as const)('hd on %s → 403 UPGRADE_REQUIRED', async (plan) => {
      const key = plan === 'free' ? free.apiKey : creator.apiKey;
      const res = await generate(t.url, key, { ...ok, model: 'hd' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('UPGRADE_REQUIRED');
    });
    it('webhooks on a plan without them → 403', async () => {
      const res = await generate(t.url, creator.apiKey, { ...ok, webhookUrl: 'http://127.0.0.1:9/hook' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('WEBHOOKS_NOT_IN_PLAN');
    });
    it('saved photo on a plan without saved assets → 403; an inline photo is fine on every plan', async () => {
      await admin(t.url).call('PUT', `/accounts/${creator.accountId}/photo`, { image: photo });
      const saved = await generate(t.url, creator.apiKey, { ...ok, usePhoto: true });
      expect(saved.status).toBe(403);
      expect(saved.body.code).toBe('FEATURE_NOT_IN_PLAN');
      const inline = await generate(t.url, free.apiKey, {
        ...ok,
        usePhoto: true,
        photoImage: await jpegDataUrl(),
      });
      expect(inline.status).toBe(200);
    });
  });

  describe('assets (spec §4 rules 4 and 6)', () => {
    it('404 for an unknown customAssetsId', async () => {
      const res = await generate(t.url, business.apiKey, { title: 'x', customAssetsId: 'ref_doesnotexist' });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('REFERENCE_SET_NOT_FOUND');
    });
    it('400 for usePhoto / useLogo with neither a saved nor an inline image', async () => {
      const fresh = await admin(t.url).createAccount('pro');
      const p = await generate(t.url, fresh.apiKey, { ...ok, usePhoto: true });
      expect(p.status).toBe(400);
      expect(p.body.code).toBe('PHOTO_REQUIRED');
      const l = await generate(t.url, fresh.apiKey, { ...ok, useLogo: true });
      expect(l.status).toBe(400);
      expect(l.body.code).toBe('LOGO_REQUIRED');
    });
    it("a reference set's stored format wins over a sent one", async () => {
      const set = await admin(t.url).call('POST', `/accounts/${business.accountId}/reference-sets`, {
        format: 'instagram',
        images: [await pngDataUrl(50, 50, { r: 10, g: 200, b: 90, alpha: 1 })],
      });
      expect(set.status).toBe(201);
      expect(set.body).toMatchObject({ format: 'instagram', imageCount: 1 });
      const res = await generate(t.url, business.apiKey, {
        title: 'Ref',
        format: 'youtube',
        customAssetsId: set.body.id,
      });
      expect(res.status).toBe(200);
      expect(res.body.format).toBe('instagram');
      expect(await decode(res.body.image)).toMatchObject({ width: 1024, height: 1024 });
      await admin(t.url).call('DELETE', `/accounts/${business.accountId}/reference-sets/${set.body.id}`);
      expect(
        (await generate(t.url, business.apiKey, { title: 'Ref', customAssetsId: set.body.id })).status,
      ).toBe(404);
    });
  });

  describe('legacy fields (spec §2.1)', () => {
    it('imageStyle with-photo + personImage uses the inline photo (+2 credits)', async () => {
      const account = await admin(t.url).createAccount('pro');
      const res = await generate(t.url, account.apiKey, {
        ...ok,
        imageStyle: 'with-photo',
        personImage: photo,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(2500 - 12));
    });
    it('imageStyle with-logo + personImage uses it as the logo (+2 credits)', async () => {
      const account = await admin(t.url).createAccount('pro');
      const res = await generate(t.url, account.apiKey, {
        ...ok,
        imageStyle: 'with-logo',
        personImage: photo,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(2500 - 12));
    });
    it('usePersonalPhoto true uses the saved photo; faceless costs the base only', async () => {
      const account = await admin(t.url).createAccount('pro');
      const none = await generate(t.url, account.apiKey, { ...ok, usePersonalPhoto: true });
      expect(none.body.code).toBe('PHOTO_REQUIRED');
      await admin(t.url).call('PUT', `/accounts/${account.accountId}/photo`, { image: photo });
      const saved = await generate(t.url, account.apiKey, { ...ok, usePersonalPhoto: true });
      expect(saved.status).toBe(200);
      expect(saved.headers.get('x-ratelimit-remaining')).toBe(String(2500 - 12));
      const faceless = await generate(t.url, account.apiKey, { ...ok, imageStyle: 'faceless' });
      expect(faceless.headers.get('x-ratelimit-remaining')).toBe(String(2500 - 22));
    });
  });

  describe('responses', () => {
    it('200 with the result of spec §2.3, X-Request-Id and credit headers', async () => {
      const res = await generate(t.url, business.apiKey, { ...ok, outputFormat: 'png' });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual([
        'dimensions',
        'format',
        'generationId',
        'image',
        'imageUrl',
        'outputFormat',
      ]);
      expect(res.body).toMatchObject({
        format: 'youtube',
        outputFormat: 'png',
        dimensions: { width: 1280, height: 720 },
      });
      expect(res.body.generationId).toMatch(/^gen_/);
      expect(res.body.imageUrl).toBe(
        `${t.cdnUrl}/users/${business.accountId}/generations/${res.body.generationId}.png`,
      );
      expect(await decode(res.body.image)).toMatchObject({
        format: 'png',
        width: 1280,
        height: 720,
        mime: 'image/png',
      });
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(res.headers.get('x-ratelimit-limit')).toBe('10000');
      expect(res.headers.get('x-ratelimit-reset')).toBe(periodReset(t.now()));
      const cdn = await fetch(res.body.imageUrl);
      expect(cdn.status).toBe(200);
      expect(cdn.headers.get('content-type')).toBe('image/png');
      expect(
        Buffer.from(await cdn.arrayBuffer()).equals(Buffer.from(res.body.image.split(',')[1], 'base64')),
      ).toBe(true);
    });
    it('echoes a sane incoming X-Request-Id', async () => {
      const res = await request(`${t.url}/health/live`, { headers: { 'x-request-id': 'client-123' } });
      expect(res.headers.get('x-request-id')).toBe('client-123');
    });
    it('every error carries { error, code }', async () => {
      const res = await request(`${t.url}/v1/nothing-here`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
    });
  });

  describe('the public test key (DESIGN §5)', () => {
    it('returns a placeholder of the right format, size and encoding and costs nothing', async () => {
      const res = await generate(t.url, 'tf_test_public', {
        title: 'Connection test',
        format: 'linkedin',
        outputFormat: 'png',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        format: 'linkedin',
        outputFormat: 'png',
        dimensions: { width: 1200, height: 627 },
      });
      expect(await decode(res.body.image)).toMatchObject({ format: 'png', width: 1200, height: 627 });
      expect(res.headers.get('x-ratelimit-remaining')).toBeNull();
    });
    it('still validates the body fully', async () => {
      const res = await generate(t.url, 'tf_test_public', { title: 'x', format: 'tiktok' });
      expect(res.status).toBe(400);
    });
  });

  describe('fuzz: arbitrary JSON bodies never cause a 5xx and never lose the service', () => {
    it('answers 200 or a 4xx with an error body for 150 random bodies', async () => {
      const field = fc.oneof(
        fc.string(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(fc.string(), { maxLength: 2 }),
      );
      const body = fc.record(
        {
          title: fc.oneof(fc.string({ maxLength: 220 }), field),
          format: fc.oneof(fc.constantFrom('youtube', 'instagram', 'x', 'blogpost', 'linkedin'), field),
          category: fc.oneof(fc.constantFrom('auto', 'gaming', 'travel'), field),
          usePhoto: field,
          useLogo: field,
          model: fc.oneof(fc.constantFrom('sd', 'hd'), field),
          outputFormat: fc.oneof(fc.constantFrom('webp', 'png'), field),
          photoImage: field,
          customAssetsId: field,
          imageStyle: field,
        },
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          t.tick();
          const res = await generate(t.url, business.apiKey, b);
          expect(res.status === 200 || (res.status >= 400 && res.status < 500)).toBe(true);
          if (res.status !== 200) expect(typeof res.body.error).toBe('string');
        }),
        { numRuns: 150 },
      );
      expect((await request(`${t.url}/health/ready`)).status).toBe(200);
    });
  });
}
