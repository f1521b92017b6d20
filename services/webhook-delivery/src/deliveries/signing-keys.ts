import { Inject, Injectable } from '@nestjs/common';
import { isEvent, type StoredEvent } from '@thumbforge/contracts';
import { CONFIG, decryptApiKey, PUBLIC_TEST_KEY, type Config } from '@thumbforge/platform';
import { foldInto, type FoldedDocument } from '@thumbforge/event-log';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';
import { signingSecretsAt, withIssuedSecret, type SigningSecret } from './webhook-secrets.js';

interface SigningKeyDoc extends FoldedDocument {
  /** The account id. */
  id: string;
  /** Kept encrypted at rest, as on the log; decrypted only to sign. */
  keyCiphertext?: string;
  /** Standard Webhooks secrets, oldest first. */
  webhookSecrets?: SigningSecret[];
}

export const SIGNING_KEYS_COLLECTION = 'webhook_signing_keys';

/**
 * Each account's current API key (the latest `gateway.api-key-issued`), the secret of the spec's
 * signature, and its Standard Webhooks secrets (`gateway.webhook-secret-issued`).
 */
@Injectable()
export class SigningKeys {
  constructor(
    @Inject(PROJECTION_STORE) private readonly store: ProjectionStore,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  private get keys() {
    return this.store.collection<SigningKeyDoc>(SIGNING_KEYS_COLLECTION);
  }

  async apply(event: StoredEvent): Promise<void> {
    // Folded, so a lease handover that applies an older event again cannot bring an old secret back.
    if (isEvent(event, 'gateway.api-key-issued')) {
      const { accountId, keyCiphertext } = event.payload;
      await foldInto(this.keys, accountId, event, (current) => ({
        ...current,
        id: accountId,
        keyCiphertext,
      }));
    }
    if (isEvent(event, 'gateway.webhook-secret-issued')) {
      const { accountId } = event.payload;
      await foldInto(this.keys, accountId, event, (current) => ({
        ...current,
        id: accountId,
        webhookSecrets: withIssuedSecret(current?.webhookSecrets ?? [], event.payload, event.occurredAt),
      }));
    }
  }

  /**
   * What signs a delivery of the account at `at`, from one read: the key of the spec's signature (the
   * public test key without an account; undefined when none is known) and the Standard Webhooks
   * secrets, newest first (none for the public test key).
   */
  async signing(accountId: string | null, at: Date): Promise<{ key: string | undefined; secrets: string[] }> {
    if (accountId === null) return { key: PUBLIC_TEST_KEY, secrets: [] };
    const doc = await this.keys.get(accountId);
    const decrypt = (ciphertext: string) => decryptApiKey(ciphertext, this.config.keyEncryptionSecret);
    return {
      key: doc?.keyCiphertext ? decrypt(doc.keyCiphertext) : undefined,
      secrets: signingSecretsAt(doc?.webhookSecrets ?? [], at).map((secret) => decrypt(secret.ciphertext)),
    };
  }
}
