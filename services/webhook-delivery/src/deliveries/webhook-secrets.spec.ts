import { describe, expect, it } from 'vitest';
import { signingSecretsAt, withIssuedSecret, type SigningSecret } from './webhook-secrets.js';

const T0 = '2026-04-10T12:00:00.000Z';
const T1 = '2026-04-10T13:00:00.000Z';
const T2 = '2026-04-11T12:00:00.000Z';
const T3 = '2026-04-12T12:00:00.000Z';

describe('withIssuedSecret', () => {
  const cases: Array<[string, SigningSecret[], string, string, SigningSecret[]]> = [
    ['the first secret', [], T2, T0, [{ ciphertext: 'new', expiresAt: null }]],
    [
      'rotation keeps the previous secret for the overlap',
      [{ ciphertext: 'a', expiresAt: null }],
      T2,
      T0,
      [
        { ciphertext: 'a', expiresAt: T2 },
        { ciphertext: 'new', expiresAt: null },
      ],
    ],
    [
      'a zero overlap drops the previous secret at once',
      [{ ciphertext: 'a', expiresAt: null }],
      T0,
      T0,
      [{ ciphertext: 'new', expiresAt: null }],
    ],
    [
      'a second rotation never extends an earlier expiry',
      [
        { ciphertext: 'a', expiresAt: T2 },
        { ciphertext: 'b', expiresAt: null },
      ],
      T3,
      T1,
      [
        { ciphertext: 'a', expiresAt: T2 },
        { ciphertext: 'b', expiresAt: T3 },
        { ciphertext: 'new', expiresAt: null },
      ],
    ],
    [
      'expired secrets are dropped',
      [
        { ciphertext: 'a', expiresAt: T1 },
        { ciphertext: 'b', expiresAt: null },
      ],
      T3,
      T2,
      [
        { ciphertext: 'b', expiresAt: T3 },
        { ciphertext: 'new', expiresAt: null },
      ],
    ],
  ];
  it.each(cases)('%s', (_name, secrets, previousExpireAt, at, expected) => {
    expect(withIssuedSecret(secrets, { secretCiphertext: 'new', previousExpireAt }, at)).toEqual(expected);
  });
});

describe('signingSecretsAt', () => {
  const secrets: SigningSecret[] = [
    { ciphertext: 'a', expiresAt: T2 },
    { ciphertext: 'b', expiresAt: null },
  ];
  it.each([
    ['within the overlap both sign, newest first', T1, ['b', 'a']],
    ['after the overlap only the newest', T2, ['b']],
  ])('%s', (_name, at, expected) => {
    expect(signingSecretsAt(secrets, new Date(at)).map((s) => s.ciphertext)).toEqual(expected);
  });
});
