import { Controller, Get, Param, Req, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ErrorDto, JobStatusDto } from '@thumbforge/contracts/api';
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
  @ApiOperation({ summary: 'Get the status and result of an asynchronous job' })
  @ApiOkResponse({ type: JobStatusDto })
  @ApiResponse({ status: 401, type: ErrorDto })
  @ApiResponse({ status: 403, type: ErrorDto, description: 'API access disabled for the account.' })
  @ApiResponse({ status: 404, type: ErrorDto })
  get(@Req() req: AuthenticatedRequest, @Param('jobId') jobId: string): Promise<JobStatusDto> {
    return this.getJob.execute({ principal: req.principal, jobId });
  }
}
