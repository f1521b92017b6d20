import { Inject, Injectable } from '@nestjs/common';
import { ERROR_CODES } from '@thumbforge/contracts';
import { type JobStatusDto } from '@thumbforge/contracts/api';
import { OBJECT_STORE, type ObjectStore } from '@thumbforge/object-store';
import type { Principal } from '../auth/principal.js';
import { ApiException } from '../http/api-exception.js';
import { GatewayReadModel } from '../read-model/gateway-read-model.js';
import { jobResult } from './job-result.js';

export interface GetJobCommand {
  principal: Principal;
  jobId: string;
}

const notFound = () => new ApiException(404, ERROR_CODES.NOT_FOUND, 'Job not found');

/** `GET /v1/jobs/{jobId}`: only the owning account sees a job; anyone else gets the same 404. */
@Injectable()
export class GetJobUseCase {
  constructor(
    private readonly readModel: GatewayReadModel,
    @Inject(OBJECT_STORE) private readonly objects: ObjectStore,
  ) {}

  async execute({ principal, jobId }: GetJobCommand): Promise<JobStatusDto> {
    if (principal.kind !== 'account') throw notFound();
    const job = await this.readModel.job(jobId);
    if (!job || job.accountId !== principal.accountId) throw notFound();
    const dto: JobStatusDto = { jobId: job.jobId, status: job.status, webhookUrl: job.webhookUrl };
    if (job.status === 'completed' && job.result) dto.result = await jobResult(job.result, this.objects);
    if (job.status === 'failed' && job.error) dto.error = job.error;
    if (job.webhook) dto.webhook = { ...job.webhook };
    return dto;
  }
}
