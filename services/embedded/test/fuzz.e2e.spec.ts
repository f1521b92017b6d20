import { ERROR_CODES } from '@thumbforge/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, ADMIN_TOKEN, generate, startApp, type TestApp } from './support/app.js';
import { pngDataUrl } from './support/images.js';

/**
 * Hand-made hostile requests, generated: every field of POST /v1/generate, its legacy fields and the
 * headers, plus the other routes. However wrong the input, the answer is never a 5xx, and every
 * error carries `{ error, code }` with a documented code.
 */
const RUNS = { generate: 6_500, raw: 2_000, otherRoutes: 1_600 };
const CODES = new Set<string>(Object.values(ERROR_CODES));

let t: TestApp;
let exhaustedKey: string;
let validPng: string;
let requests = 0;

beforeAll(async () => {
  t = await startApp({ WEBHOOK_ALLOW_PRIVATE: '0', RATE_LIMITS: 'free=1000' });
  validPng = await pngDataUrl(64, 48);
  // A real key whose credits are spent: valid requests pass every check up to billing, then stop.
  const account = await admin(t.url).createAccount('free');
  exhaustedKey = account.apiKey;
  for (let i = 0; i < 100; i++) {
    const res = await generate(t.url, exhaustedKey, { title: `spend ${i}`, format: 'x' });
    if (res.status === 429 && res.body.code === 'GENERATION_LIMIT_EXCEEDED') break;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
});
afterAll(async () => {
  await t?.close();
});

async function send(path: string, init: RequestInit): Promise<{ status: number; text: string }> {
  requests++;
  // The per-second limits follow the app's clock: each request starts a fresh second.
  t.clock.advance(1000);
  const res = await fetch(`${t.url}${path}`, init);
  return { status: res.status, text: await res.text() };
}

function expectWellFormed(res: { status: number; text: string }, input: unknown): void {
  const context = `${res.status} ${res.text.slice(0, 300)} for ${JSON.stringify(input)?.slice(0, 600)}`;
  expect(res.status, context).toBeLessThan(500);
  if (res.status < 400) return;
  const body = JSON.parse(res.text) as { error?: unknown; code?: unknown };
  expect(Object.keys(body).sort(), context).toEqual(['code', 'error']);
  expect(typeof body.error, context).toBe('string');
  expect(CODES.has(body.code as string), context).toBe(true);
}

const wrongTypes = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);
const oddStrings = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u200b\u200d\ufeff',
    '\u3164',
    '\t\n',
    'x'.repeat(201),
    'x'.repeat(5_000),
  ),
);
/** A field: absent, one of its valid values, an odd string or a value of another type. */
const field = (...valid: unknown[]) =>
  fc.option(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...valid) }, oddStrings, wrongTypes), {
    nil: undefined,
  });
const imageField = () =>
  field(
    'VALID',
    'data:image/png;base64,',
    'data:image/png;base64,AAAA',
    'data:image/gif;base64,R0lGODlhAQABAAAAACw=',
    'data:image/svg+xml;base64,PHN2Zy8+',
    'https://example.com/a.png',
    `data:image/png;base64,${'A'.repeat(4_000)}`,
  );

const generateBody = fc.record(
  {
    title: field('A fuzzed title', 'नमस्ते 😀', ' Two\nlines '),
    format: field('youtube', 'instagram', 'x', 'blogpost', 'linkedin'),
    category: field('auto', 'gaming', 'travel'),
    usePhoto: field(true, false),
    useLogo: field(true, false),
    photoImage: imageField(),
    logoImage: imageField(),
    customAssetsId: field('ref_missing', ''),
    model: field('sd', 'hd'),
    outputFormat: field('webp', 'png'),
    webhookUrl: field(
      'http://127.0.0.1:9/hook',
      'https://10.0.0.1/h',
      'http://[::1]/h',
      'ftp://x/y',
      '/relative',
    ),
    imageStyle: field('faceless', 'with-image', 'with-photo', 'with-logo'),
    personImage: imageField(),
    usePersonalPhoto: field(true, false),
    [`unknown_${'x'}`]: field('ignored'),
  },
  { requiredKeys: [] },
);
const apiKey = fc.constantFrom<string | undefined>(
  'tf_test_public',
  'EXHAUSTED',
  'tf_live_not_a_real_key',
  '',
  undefined,
  'x'.repeat(5_000),
);

describe('fuzzing the API with fast-check', () => {
  it(`POST /v1/generate: ${RUNS.generate} bodies over every field and legacy field`, async () => {
    await fc.assert(
      fc.asyncProperty(generateBody, apiKey, async (raw, key) => {
        const body = Object.fromEntries(
          Object.entries(raw).map(([k, v]) => [k, v === 'VALID' ? validPng : v]),
        );
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (key !== undefined) headers['x-api-key'] = key === 'EXHAUSTED' ? exhaustedKey : key;
        const res = await send('/v1/generate', { method: 'POST', headers, body: JSON.stringify(body) });
        expectWellFormed(res, { body, key });
      }),
      { numRuns: RUNS.generate, seed: 11 },
    );
  });

  const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const rawBody = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.constantFrom(
      '',
      'null',
      '[]',
      '"title"',
      '{',
      '{"title":',
      deep(5_000),
      `[${'['.repeat(4_000)}]`,
      '1e999',
    ),
    fc.json({ maxDepth: 4 }),
  );
  const header = (...values: string[]) =>
    fc.option(fc.oneof(fc.constantFrom(...values), fc.string({ maxLength: 60 })), { nil: undefined });

  it(`POST /v1/generate: ${RUNS.raw} raw bodies with fuzzed headers`, async () => {
    await fc.assert(
      fc.asyncProperty(
        rawBody,
        fc.record(
          {
            'content-type': header(
              'application/json',
              'text/plain',
              'application/json; charset=utf-16',
              'application/merge-patch+json',
              'multipart/form-data',
            ),
            'x-api-key': header('tf_test_public'),
            'x-request-id': header('req-1', 'a'.repeat(200), 'bad id with spaces'),
            'x-forwarded-for': header('1.2.3.4', '::1, 10.0.0.1', 'garbage'),
            'content-encoding': header('gzip', 'identity', 'br'),
            accept: header('application/json', 'text/html', '*/*'),
          },
          { requiredKeys: [] },
        ),
        async (body, rawHeaders) => {
          // Header values must be Latin-1 to be sent at all.
          const headers = Object.fromEntries(
            Object.entries(rawHeaders).filter(([, v]) => v !== undefined && /^[\x20-\x7e]*$/.test(v)),
          ) as Record<string, string>;
          const res = await send('/v1/generate', { method: 'POST', headers, body });
          expectWellFormed(res, { body: body.slice(0, 200), headers });
        },
      ),
      { numRuns: RUNS.raw, seed: 12 },
    );
  });

  it(`other routes: ${RUNS.otherRoutes} requests to jobs, admin and unknown paths`, async () => {
    const segment = fc.oneof(
      fc.constantFrom('job_missing', 'acc_missing', '..', '%00', '%2e%2e', 'x'.repeat(300)),
      fc.string({ maxLength: 20 }).map(encodeURIComponent),
    );
    const route = fc.oneof(
      segment.map((id) => ({ method: 'GET', path: `/v1/jobs/${id}` })),
      segment.map((id) => ({ method: 'GET', path: `/admin/v1/accounts/${id}` })),
      segment.map((id) => ({ method: 'PATCH', path: `/admin/v1/accounts/${id}` })),
      segment.map((id) => ({ method: 'PUT', path: `/admin/v1/accounts/${id}/photo` })),
      segment.map((id) => ({ method: 'PUT', path: `/admin/v1/accounts/${id}/logo` })),
      segment.map((id) => ({ method: 'POST', path: `/admin/v1/accounts/${id}/reference-sets` })),
      segment.map((id) => ({ method: 'GET', path: `/admin/v1/accounts/${id}/ledger` })),
      fc.constant({ method: 'POST', path: '/admin/v1/accounts' }),
      segment.map((id) => ({ method: 'DELETE', path: `/v1/${id}` })),
    );
    const body = fc.oneof(
      fc.record(
        {
          plan: field('free', 'creator', 'pro', 'business'),
          apiAccess: field(true, false),
          image: imageField(),
          position: field('top-left', 'bottom-right'),
          size: field(0.05, 0.5, 0.04, 0.51, Number.MAX_VALUE),
          dropShadow: field(true, false),
          format: field('x', 'youtube'),
          images: fc.option(fc.array(imageField(), { maxLength: 8 }), { nil: undefined }),
        },
        { requiredKeys: [] },
      ),
      wrongTypes,
    );
    const authorization = fc.constantFrom<string | undefined>(
      `Bearer ${ADMIN_TOKEN}`,
      'Bearer wrong-token-0000000000',
      'Basic abc',
      undefined,
    );
    await fc.assert(
      fc.asyncProperty(route, body, authorization, apiKey, async ({ method, path }, rawBody, auth, key) => {
        const json = JSON.stringify(rawBody, (_k, v: unknown) => (v === 'VALID' ? validPng : v));
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (auth) headers.authorization = auth;
        if (key !== undefined) headers['x-api-key'] = key === 'EXHAUSTED' ? exhaustedKey : key;
        const res = await send(path, { method, headers, body: method === 'GET' ? undefined : json });
        expectWellFormed(res, { method, path, body: rawBody, auth });
      }),
      { numRuns: RUNS.otherRoutes, seed: 13 },
    );
  });

  it('sent at least 10,000 requests', () => {
    expect(requests).toBeGreaterThanOrEqual(10_000);
  });
});
