import { Inject, Injectable } from '@nestjs/common';
import { ERROR_CODES, makeEvent, newId, TOPICS } from '@thumbforge/contracts';
import {
  type AccountDto,
  type CreateAccountDto,
  type CreatedAccountDto,
  type IssueWebhookSecretDto,
  type UrlSigningSecretDto,
  type WebhookSecretDto,
  type LedgerEntryDto,
  type UpdateAccountDto,
} from '@thumbforge/contracts/api';
import { creditsAt } from '@thumbforge/domain';
import { EVENT_LOG, type EventLog } from '@thumbforge/event-log';
import {
  CLOCK,
  CONFIG,
  encryptApiKey,
  generateApiKey,
  generateUrlSigningSecret,
  generateWebhookSecret,
  hashApiKey,
  type Clock,
  type Config,
} from '@thumbforge/platform';
import { ApiException } from '../http/api-exception.js';
import { Replies } from '../messaging/replies.js';
import { GatewayReadModel, type AccountDoc } from '../read-model/gateway-read-model.js';

const REPLY_TIMEOUT_MS = 30_000;
const DEFAULT_SECRET_OVERLAP_S = 24 * 60 * 60;

/** The admin side of accounts and API keys (DESIGN §6). Plans and credits are billing's facts. */
@Injectable()
export class AccountsUseCase {
  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly replies: Replies,
    private readonly readModel: GatewayReadModel,
  ) {}

  async create(dto: CreateAccountDto): Promise<CreatedAccountDto> {
    const accountId = newId('acc', this.clock.now().getTime());
    const apiAccess = dto.apiAccess ?? true;
    const opened = this.replies.expect(accountId, ['billing.account-opened'], REPLY_TIMEOUT_MS);
    await this.log.append(TOPICS.billing, [
      makeEvent(
        'billing.account-open-requested',
        accountId,
        { accountId, plan: dto.plan, apiAccess },
        { correlationId: accountId },
      ),
    ]);
    await this.readModel.settle([await opened]);
    const apiKey = await this.issueKey(accountId);
    return { accountId, apiKey, plan: dto.plan, apiAccess };
  }

  async get(accountId: string): Promise<AccountDto> {
    const account = await this.require(accountId);
    const ledger = account.ledger!;
    return {
      accountId,
      plan: ledger.plan,
      apiAccess: ledger.apiAccess,
      credits: creditsAt(ledger, this.clock.now()),
    };
  }

  async update(accountId: string, dto: UpdateAccountDto): Promise<AccountDto> {
    const ledger = (await this.require(accountId)).ledger!;
    const change = {
      ...(dto.plan !== undefined && dto.plan !== ledger.plan ? { plan: dto.plan } : {}),
      ...(dto.apiAccess !== undefined && dto.apiAccess !== ledger.apiAccess
        ? { apiAccess: dto.apiAccess }
        : {}),
    };
    if (Object.keys(change).length > 0) {
      const changed = this.replies.expect(accountId, ['billing.account-changed'], REPLY_TIMEOUT_MS);
      await this.log.append(TOPICS.billing, [
        makeEvent(
          'billing.account-change-requested',
          accountId,
          { accountId, ...change },
          { correlationId: accountId },
        ),
      ]);
      await this.readModel.settle([await changed]);
    }
    return this.get(accountId);
  }

  /** Rotation: the new key replaces the old one in the same fact, so the old key fails at once. */
  async rotateKey(accountId: string): Promise<{ apiKey: string }> {
    await this.require(accountId);
    return { apiKey: await this.issueKey(accountId) };
  }

  /**
   * A new Standard Webhooks secret; deliveries sign with it at once and, for the overlap, with the
   * ones before it too, so receivers can switch secrets without rejecting a delivery.
   */
  async issueWebhookSecret(accountId: string, dto: IssueWebhookSecretDto): Promise<WebhookSecretDto> {
    await this.require(accountId);
    const secret = generateWebhookSecret();
    const overlapMs = (dto.overlapSeconds ?? DEFAULT_SECRET_OVERLAP_S) * 1000;
    const previousSecretsExpireAt = new Date(this.clock.now().getTime() + overlapMs).toISOString();
    await this.log.append(TOPICS.gateway, [
      makeEvent(
        'gateway.webhook-secret-issued',
        accountId,
        {
          accountId,
          secretCiphertext: encryptApiKey(secret, this.config.keyEncryptionSecret),
          secretHint: secret.slice(-4),
          previousExpireAt: previousSecretsExpireAt,
        },
        { correlationId: accountId, occurredAt: this.clock.now() },
      ),
    ]);
    return { secret, previousSecretsExpireAt };
  }

  /** The secret of signed image URLs; the one before stops verifying at once (that is how to revoke). */
  async issueUrlSigningSecret(accountId: string): Promise<UrlSigningSecretDto> {
    await this.require(accountId);
    const secret = generateUrlSigningSecret();
    const stored = await this.log.append(TOPICS.gateway, [
      makeEvent(
        'gateway.url-signing-secret-issued',
        accountId,
        {
          accountId,
          secretCiphertext: encryptApiKey(secret, this.config.keyEncryptionSecret),
          secretHint: secret.slice(-4),
        },
        { correlationId: accountId, occurredAt: this.clock.now() },
      ),
    ]);
    await this.readModel.settle(stored);
    return { secret };
  }

  async ledger(accountId: string): Promise<LedgerEntryDto[]> {
    const entries = await this.readModel.ledgerEntries((await this.require(accountId)).ledger!);
    return entries.reverse().map((e) => ({ ...e }));
  }

  async require(accountId: string): Promise<AccountDoc> {
    const account = await this.readModel.account(accountId);
    if (!account?.ledger) throw new ApiException(404, ERROR_CODES.NOT_FOUND, 'Account not found');
    return account;
  }

  private async issueKey(accountId: string): Promise<string> {
    const apiKey = generateApiKey();
    const stored = await this.log.append(TOPICS.gateway, [
      makeEvent(
        'gateway.api-key-issued',
        accountId,
        {
          accountId,
          keyHash: hashApiKey(apiKey),
          keyCiphertext: encryptApiKey(apiKey, this.config.keyEncryptionSecret),
          keyHint: apiKey.slice(-4),
        },
        { correlationId: accountId },
      ),
    ]);
    await this.readModel.settle(stored);
    return apiKey;
  }
}
