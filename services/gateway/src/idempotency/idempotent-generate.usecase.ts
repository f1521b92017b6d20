import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  ERROR_CODES,
  makeEvent,
  newId,
  TOPICS,
  type ErrorCode,
  type EventPayloads,
  type IdempotentResponse,
} from '@thumbforge/contracts';
import { type JobAcceptedDto, type NormalizedGenerateRequest } from '@thumbforge/contracts/api';
import { decideIdempotency, IDEMPOTENCY_KEY_PATTERN, type IdempotencyRecord } from '@thumbforge/domain';
import { EVENT_LOG, type EventLog } from '@thumbforge/event-log';
import { OBJECT_STORE, type ObjectStore } from '@thumbforge/object-store';
import { CLOCK, CONFIG, type Clock, type Config } from '@thumbforge/platform';
import { creditHeaders } from '../generate/credit-headers.js';
import type { GenerateCommand } from '../generate/generate.command.js';
import { GenerateUseCase, type GenerateOutcome } from '../generate/generate.usecase.js';
import { ApiException } from '../http/api-exception.js';
import { jobResult } from '../jobs/job-result.js';
import { Replies } from '../messaging/replies.js';
import { GatewayReadModel } from '../read-model/gateway-read-model.js';

export interface IdempotentGenerateCommand extends GenerateCommand {
  /** The `Idempotency-Key` header, or null without one. */
  idempotencyKey: string | null;
}

/** A waiting duplicate wakes at least this often to look at the key again (its winner may be gone). */
const WAIT_SLICE_MS = 1_000;
const JOB_POLL_MS = 50;
/** Beyond the sync timeout: the steps before the render (assets, reservation) get this much. */
const LOCK_MARGIN_MS = 60_000;

export function requestHash(request: NormalizedGenerateRequest): string {
  // The normalized request has a fixed shape: legacy spellings of one request hash the same.
  return createHash('sha256').update(JSON.stringify(request)).digest('hex');
}

/**
 * `Idempotency-Key` around the generate use case (Stripe's semantics): the first request with a key
 * runs, the same key with the same body within 24 h replays its response, another body is `422`.
 * Which request runs is decided by the order of claims on the account's partition of the log, so
 * concurrent duplicates on any number of gateway replicas execute once, and a restart keeps it.
 */
@Injectable()
export class IdempotentGenerateUseCase {
  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(OBJECT_STORE) private readonly objects: ObjectStore,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly replies: Replies,
    private readonly readModel: GatewayReadModel,
    private readonly generate: GenerateUseCase,
  ) {}

  private get lockMs(): number {
    return this.config.syncTimeoutMs + LOCK_MARGIN_MS;
  }

  async execute(command: IdempotentGenerateCommand): Promise<GenerateOutcome> {
    const { principal, idempotencyKey: key, ...rest } = command;
    // The public test key charges nothing and has no account to keep keys for.
    if (key === null || principal.kind !== 'account') return this.generate.execute({ principal, ...rest });
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new ApiException(
        400,
        ERROR_CODES.INVALID_IDEMPOTENCY_KEY,
        'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces',
      );
    }
    const { accountId } = principal;
    const hash = requestHash(command.request);
    const deadline = Date.now() + this.lockMs;
    let ownJobId: string | null = null;
    while (Date.now() < deadline) {
      const record = await this.readModel.idempotencyKey(accountId, key);
      const decision = decideIdempotency(record, { requestHash: hash, ownJobId, at: this.clock.now() });
      switch (decision.kind) {
        case 'execute':
          return this.run({ principal, ...rest }, key, ownJobId!);
        case 'conflict':
          throw new ApiException(
            422,
            ERROR_CODES.IDEMPOTENCY_KEY_REUSED,
            'Idempotency-Key was already used with a different request body',
          );
        case 'replay':
          return this.replay(accountId, decision.record.jobId, decision.record.response!);
        case 'wait': {
          const response = await this.waitForWinner(decision.record);
          if (response) return this.replay(accountId, decision.record.jobId, response);
          break;
        }
        case 'claim':
          // A winner that died after its job was accepted: the job answers, it must not run twice.
          if (record?.state === 'in-progress' && (await this.readModel.job(record.jobId))) {
            return this.replay(accountId, record.jobId, { kind: 'job' });
          }
          ownJobId = newId('job', this.clock.now().getTime());
          await this.claim(accountId, key, hash, ownJobId);
          break;
      }
    }
    throw new ApiException(
      409,
      ERROR_CODES.IDEMPOTENCY_KEY_IN_USE,
      'A request with this Idempotency-Key is still being processed; retry later',
    );
  }

  private async claim(accountId: string, key: string, hash: string, jobId: string): Promise<void> {
    const now = this.clock.now();
    const stored = await this.log.append(TOPICS.gateway, [
      makeEvent(
        'gateway.idempotency-key-claimed',
        accountId,
        {
          accountId,
          key,
          requestHash: hash,
          jobId,
          lockExpiresAt: new Date(now.getTime() + this.lockMs).toISOString(),
        },
        { correlationId: jobId, occurredAt: now },
      ),
    ]);
    await this.readModel.settle(stored);
  }

  private async run(command: GenerateCommand, key: string, jobId: string): Promise<GenerateOutcome> {
    const accountId = (command.principal as { accountId: string }).accountId;
    let outcome: GenerateOutcome;
    try {
      outcome = await this.generate.execute({ ...command, jobId });
    } catch (error) {
      const response = await this.responseOfFailure(error, jobId);
      await this.settleKey(accountId, key, jobId, response);
      throw error;
    }
    await this.settleKey(
      accountId,
      key,
      jobId,
      outcome.kind === 'accepted'
        ? { kind: 'response', status: 202, body: { ...outcome.body } }
        : { kind: 'job' },
    );
    return outcome;
  }

  /**
   * A decided refusal (4xx but 429) is kept and replayed; a job accepted before it failed replays
   * from the job; anything else (429, a timeout before acceptance) frees the key for a retry.
   */
  private async responseOfFailure(error: unknown, jobId: string): Promise<IdempotentResponse | null> {
    if (error instanceof ApiException && error.getStatus() < 500 && error.getStatus() !== 429) {
      return { kind: 'response', status: error.getStatus(), body: { ...(error.getResponse() as object) } };
    }
    return (await this.readModel.job(jobId)) ? { kind: 'job' } : null;
  }

  private async settleKey(
    accountId: string,
    key: string,
    jobId: string,
    response: IdempotentResponse | null,
  ): Promise<void> {
    const event = response
      ? makeEvent(
          'gateway.idempotency-key-completed',
          accountId,
          { accountId, key, jobId, response },
          {
            correlationId: jobId,
            occurredAt: this.clock.now(),
          },
        )
      : makeEvent(
          'gateway.idempotency-key-released',
          accountId,
          { accountId, key, jobId },
          {
            correlationId: jobId,
            occurredAt: this.clock.now(),
          },
        );
    // Not fatal to the request: an unsettled key expires with its lock, and the job then answers.
    await this.log.append(TOPICS.gateway, [event]).catch(() => undefined);
  }

  /** The winner's response once it completes; null when it released the key or a slice passed. */
  private async waitForWinner(record: IdempotencyRecord): Promise<IdempotentResponse | null> {
    const settled = this.replies.expect(
      record.jobId,
      ['gateway.idempotency-key-completed', 'gateway.idempotency-key-released'],
      WAIT_SLICE_MS,
    );
    settled.catch(() => undefined);
    // Registered first: a completion between the record's read and now is not missed.
    const again = await this.readModel.idempotencyKey(record.accountId, record.key);
    if (again?.jobId !== record.jobId || again.state !== 'in-progress') return null;
    try {
      const event = await settled;
      return event.type === 'gateway.idempotency-key-completed'
        ? (event.payload as EventPayloads['gateway.idempotency-key-completed']).response
        : null;
    } catch {
      return null;
    }
  }

  private async replay(
    accountId: string,
    jobId: string,
    response: IdempotentResponse,
  ): Promise<GenerateOutcome> {
    const ledger = (await this.readModel.account(accountId))?.ledger;
    const headers = { ...creditHeaders(ledger, this.clock.now()), 'Idempotent-Replayed': 'true' };
    if (response.kind === 'response') {
      if (response.status === 202) {
        return { kind: 'accepted', body: response.body as unknown as JobAcceptedDto, headers };
      }
      const { error, code } = response.body as { error: string; code: ErrorCode };
      throw new ApiException(response.status, code, error, headers);
    }
    const job = await this.terminalJob(jobId);
    if (job?.webhookUrl) {
      return { kind: 'accepted', body: { jobId, status: 'processing', webhookUrl: job.webhookUrl }, headers };
    }
    if (job?.status === 'completed' && job.result) {
      return { kind: 'completed', body: await jobResult(job.result, this.objects), headers };
    }
    if (job?.status === 'failed') {
      throw new ApiException(500, ERROR_CODES.GENERATION_FAILED, `Generation failed: ${job.error}`, headers);
    }
    throw new ApiException(
      409,
      ERROR_CODES.IDEMPOTENCY_KEY_IN_USE,
      'The request with this Idempotency-Key is still being processed; retry later',
      headers,
    );
  }

  /** The job's view once it has an outcome (an async job at once); its render may just be landing. */
  private async terminalJob(jobId: string) {
    const deadline = Date.now() + this.config.syncTimeoutMs;
    for (;;) {
      const job = await this.readModel.job(jobId);
      if (job && (job.webhookUrl || job.status !== 'processing')) return job;
      if (Date.now() >= deadline) return job;
      await new Promise((resolve) => setTimeout(resolve, JOB_POLL_MS));
    }
  }
}
