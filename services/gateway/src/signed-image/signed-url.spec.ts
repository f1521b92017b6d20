import { describe, expect, it } from 'vitest';
import {
  canonicalString,
  parameterSetHash,
  signatureOf,
  verifySignedUrl,
  type SignedImageParams,
} from './signed-url.js';

const SECRET = 'tfus_0123456789abcdefghijklmnopqrstuv';
const PATH = '/v1/og/acc_1.webp';
const NOW = new Date('2026-04-10T12:00:00Z');
const NOW_S = NOW.getTime() / 1000;

describe('canonicalString', () => {
  it.each<[string, SignedImageParams, string]>([
    ['sorts parameters by name', { title: 'Hi', format: 'x' }, `${PATH}?format=x&title=Hi`],
    [
      'encodes as encodeURIComponent does',
      { title: "Ça & co: 100% (ok)! *'~", format: 'x' },
      `${PATH}?format=x&title=%C3%87a%20%26%20co%3A%20100%25%20(ok)!%20*'~`,
    ],
    ['leaves out absent parameters', { title: 'a', exp: '5' }, `${PATH}?exp=5&title=a`],
  ])('%s', (_name, params, expected) => {
    expect(canonicalString(PATH, params)).toBe(expected);
  });
});

describe('verifySignedUrl', () => {
  const params = { title: 'Hello', format: 'blogpost' };
  const sig = signatureOf(SECRET, PATH, params);
  const cases: Array<[string, string, SignedImageParams, string | undefined, string]> = [
    ['a valid signature', PATH, params, sig, 'ok'],
    ['no signature', PATH, params, undefined, 'INVALID_SIGNATURE'],
    ['a tampered title', PATH, { ...params, title: 'Hellp' }, sig, 'INVALID_SIGNATURE'],
    ['an added parameter', PATH, { ...params, model: 'hd' }, sig, 'INVALID_SIGNATURE'],
    ['another account', '/v1/og/acc_2.webp', params, sig, 'INVALID_SIGNATURE'],
    ['another output format', '/v1/og/acc_1.png', params, sig, 'INVALID_SIGNATURE'],
    [
      'a future expiry',
      PATH,
      { ...params, exp: String(NOW_S + 60) },
      signatureOf(SECRET, PATH, { ...params, exp: String(NOW_S + 60) }),
      'ok',
    ],
    [
      'a past expiry',
      PATH,
      { ...params, exp: String(NOW_S) },
      signatureOf(SECRET, PATH, { ...params, exp: String(NOW_S) }),
      'URL_EXPIRED',
    ],
    [
      'an expiry that is not a number',
      PATH,
      { ...params, exp: 'soon' },
      signatureOf(SECRET, PATH, { ...params, exp: 'soon' }),
      'URL_EXPIRED',
    ],
  ];
  it.each(cases)('%s → %s', (_name, path, given, signature, expected) => {
    const verdict = verifySignedUrl(SECRET, path, given, signature, NOW);
    expect(verdict.ok ? 'ok' : verdict.code).toBe(expected);
  });
});

describe('parameterSetHash', () => {
  it('ignores the expiry but no generation parameter', () => {
    const base = { title: 'Hello', format: 'x' };
    expect(parameterSetHash(PATH, { ...base, exp: '1' })).toBe(parameterSetHash(PATH, base));
    expect(parameterSetHash(PATH, { ...base, model: 'hd' })).not.toBe(parameterSetHash(PATH, base));
    expect(parameterSetHash('/v1/og/acc_1.png', base)).not.toBe(parameterSetHash(PATH, base));
  });
});
