/** One Standard Webhooks secret of an account, encrypted as on the log. */
export interface SigningSecret {
  ciphertext: string;
  /** null: the newest secret, which signs until a later one's overlap ends. */
  expiresAt: string | null;
}

const stillSigning = (secret: SigningSecret, at: string) =>
  secret.expiresAt === null || secret.expiresAt > at;

/**
 * The account's secrets after a new one is issued at `at`: the new one signs from now on, the ones
 * before it until `previousExpireAt` at the latest (never longer than they already would), and those
 * already expired are dropped.
 */
export function withIssuedSecret(
  secrets: readonly SigningSecret[],
  issued: { secretCiphertext: string; previousExpireAt: string },
  at: string,
): SigningSecret[] {
  const kept = secrets
    .filter((secret) => stillSigning(secret, at))
    .map((secret) => ({
      ...secret,
      expiresAt:
        secret.expiresAt === null || secret.expiresAt > issued.previousExpireAt
          ? issued.previousExpireAt
          : secret.expiresAt,
    }))
    .filter((secret) => stillSigning(secret, at));
  return [...kept, { ciphertext: issued.secretCiphertext, expiresAt: null }];
}

/** The secrets that sign a delivery made at `at`, newest first. */
export function signingSecretsAt(secrets: readonly SigningSecret[], at: Date): SigningSecret[] {
  return secrets.filter((secret) => stillSigning(secret, at.toISOString())).reverse();
}
