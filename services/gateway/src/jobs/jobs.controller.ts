import { Controller, Get, Param, Req, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ErrorDto, JobStatusDto } from '@thumbforge/contracts';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import type { AuthenticatedRequest } from '../auth/principal.js';
import { GetJobUseCase } from './get-job.usecase.js';

@ApiTags('jobs')
@ApiSecurity('api-key')
@Controller('v1/jobs')
export class JobsController {
  constructor(private readonly getJob: GetJobUseCase) {}

  @Get(':jobId')
  @UseGuards(ApiKeyGuard)
  @ApiOkResponse({ type: JobStatusDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  get(@Req() req: AuthenticatedRequest, @Param('jobId') jobId: string): Promise<JobStatusDto> {
    return this.getJob.execute({ principal: req.principal, jobId });
  }
}
