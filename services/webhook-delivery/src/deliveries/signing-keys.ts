import { Inject, Injectable } from '@nestjs/common';
import { isEvent, type StoredEvent } from '@thumbforge/contracts';
import { CONFIG, decryptApiKey, PUBLIC_TEST_KEY, type Config } from '@thumbforge/platform';
import { foldInto, type FoldedDocument } from '@thumbforge/event-log';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';

interface SigningKeyDoc extends FoldedDocument {
  /** The account id. */
  id: string;
  /** Kept encrypted at rest, as on the log; decrypted only to sign. */
  keyCiphertext: string;
}

export const SIGNING_KEYS_COLLECTION = 'webhook_signing_keys';

/** Each account's current API key (the latest `gateway.api-key-issued`): the webhook HMAC secret. */
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
    if (!isEvent(event, 'gateway.api-key-issued')) return;
    const { accountId, keyCiphertext } = event.payload;
    // Folded, so a lease handover that applies an older key again cannot bring it back.
    await foldInto(this.keys, accountId, event, () => ({ id: accountId, keyCiphertext }));
  }

  /** The key that signs for the account; deliveries without an account are signed with the public test key. */
  async currentKey(accountId: string | null): Promise<string | undefined> {
    if (accountId === null) return PUBLIC_TEST_KEY;
    const doc = await this.keys.get(accountId);
    return doc ? decryptApiKey(doc.keyCiphertext, this.config.keyEncryptionSecret) : undefined;
  }
}
