import { Inject, Injectable } from '@nestjs/common';
import { ERROR_CODES } from '@thumbforge/contracts';
import { GenerateRequestDto, normalizeGenerateRequest } from '@thumbforge/contracts/api';
import { OBJECT_STORE, type ObjectStore } from '@thumbforge/object-store';
import { CLOCK, CONFIG, decryptApiKey, type Clock, type Config } from '@thumbforge/platform';
import { ApiException } from '../http/api-exception.js';
import { apiValidationPipe } from '../http/validation.pipe.js';
import { IdempotentGenerateUseCase } from '../idempotency/idempotent-generate.usecase.js';
import { GatewayReadModel, type AccountDoc } from '../read-model/gateway-read-model.js';
import { parameterSetHash, signedImagePath, verifySignedUrl, type SignedImageParams } from './signed-url.js';

export interface SignedImageCommand {
  accountId: string;
  outputFormat: 'webp' | 'png';
  params: SignedImageParams;
  signature: string | undefined;
  ifNoneMatch: string | undefined;
}

export type SignedImageOutcome =
  | { kind: 'not-modified'; headers: Record<string, string> }
  | { kind: 'image'; body: Buffer; headers: Record<string, string> };

const YEAR_S = 365 * 24 * 60 * 60;
const MIME = { webp: 'image/webp', png: 'image/png' } as const;

const invalidSignature = () => new ApiException(403, ERROR_CODES.INVALID_SIGNATURE, 'Invalid signature');

/**
 * `GET /v1/og/…`: a signed URL renders on its first fetch through the idempotent generate use case
 * (keyed on its parameter set, so concurrent first fetches on any replica render and charge once),
 * stores the image, and is served from storage afterwards with an ETag.
 */
@Injectable()
export class SignedImageUseCase {
  constructor(
    @Inject(OBJECT_STORE) private readonly objects: ObjectStore,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readModel: GatewayReadModel,
    private readonly generate: IdempotentGenerateUseCase,
  ) {}

  async execute(command: SignedImageCommand): Promise<SignedImageOutcome> {
    const { accountId, outputFormat, params } = command;
    const account = await this.readModel.account(accountId);
    // An unknown account and one without a secret look the same as a wrong signature.
    if (!account?.ledger || !account.urlSigningSecretCiphertext) throw invalidSignature();
    const secret = decryptApiKey(account.urlSigningSecretCiphertext, this.config.keyEncryptionSecret);
    const path = signedImagePath(accountId, outputFormat);
    const verdict = verifySignedUrl(secret, path, params, command.signature, this.clock.now());
    if (!verdict.ok) throw new ApiException(403, ERROR_CODES[verdict.code], verdict.message);
    if (!account.ledger.apiAccess) {
      throw new ApiException(403, ERROR_CODES.API_ACCESS_DISABLED, 'API access not enabled');
    }

    const hash = parameterSetHash(path, params);
    const headers = {
      ETag: `"${hash.slice(0, 32)}"`,
      'Cache-Control': this.cacheControl(params.exp),
      'Content-Type': MIME[outputFormat],
    };
    if (matches(command.ifNoneMatch, headers.ETag)) return { kind: 'not-modified', headers };
    const key = `users/${accountId}/og/${hash}.${outputFormat}`;
    const stored = await this.objects.get('public', key).catch(() => undefined);
    if (stored) return { kind: 'image', body: stored.body, headers };

    const body = await this.render(account, outputFormat, params, hash);
    // Storage down: the image is still served, and the next fetch replays the same generation.
    await this.objects.put('public', key, body, MIME[outputFormat]).catch(() => undefined);
    return { kind: 'image', body, headers };
  }

  private async render(
    account: AccountDoc,
    outputFormat: 'webp' | 'png',
    params: SignedImageParams,
    hash: string,
  ): Promise<Buffer> {
    const dto = (await apiValidationPipe().transform(
      {
        title: params.title,
        format: params.format,
        category: params.category,
        model: params.model,
        usePhoto: flag(params.usePhoto, 'usePhoto'),
        useLogo: flag(params.useLogo, 'useLogo'),
        customAssetsId: params.customAssetsId,
        outputFormat,
      },
      { type: 'body', metatype: GenerateRequestDto },
    )) as GenerateRequestDto;
    const outcome = await this.generate.execute({
      // A signed URL authenticates by its signature; there is no API key in the request.
      principal: { kind: 'account', accountId: account.id, apiKey: '', plan: account.ledger!.plan, account },
      request: normalizeGenerateRequest(dto),
      idempotencyKey: `og_${hash.slice(0, 48)}`,
    });
    if (outcome.kind !== 'completed') throw new Error('a signed image request has no webhook');
    return Buffer.from(outcome.body.image.slice(outcome.body.image.indexOf(',') + 1), 'base64');
  }

  /** Immutable for a year, or until the URL expires. */
  private cacheControl(exp: string | undefined): string {
    if (exp === undefined) return `public, max-age=${YEAR_S}, immutable`;
    const left = Math.floor(Number(exp) - this.clock.now().getTime() / 1000);
    return `public, max-age=${Math.max(0, Math.min(left, YEAR_S))}`;
  }
}

function flag(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new ApiException(400, ERROR_CODES.INVALID_REQUEST, `${name} must be true or false`);
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}
