import { Body, Controller, Headers, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiHeader,
  ApiOperation,
  ApiOkResponse,
  ApiResponse,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import {
  ErrorDto,
  GenerateRequestDto,
  GenerationResultDto,
  JobAcceptedDto,
  normalizeGenerateRequest,
} from '@thumbforge/contracts/api';
import type { Response } from 'express';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import type { AuthenticatedRequest } from '../auth/principal.js';
import { JsonObjectPipe } from '../http/json-object.pipe.js';
import { apiValidationPipe } from '../http/validation.pipe.js';
import { RateLimitGuard } from '../rate-limit/rate-limit.guard.js';
import { IdempotentGenerateUseCase } from '../idempotency/idempotent-generate.usecase.js';

/** Credit headers ride on results and on refusals by billing; absent for the public test key. */
const CREDIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Monthly credit allowance', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Credits left this period', schema: { type: 'integer' } },
  'X-RateLimit-Reset': {
    description: 'End of the credit period',
    schema: { type: 'string', format: 'date-time' },
  },
} as const;

@ApiTags('generate')
@ApiSecurity('api-key')
@Controller('v1/generate')
export class GenerateController {
  constructor(private readonly generate: IdempotentGenerateUseCase) {}

  @Post()
  @HttpCode(200)
  @UseGuards(ApiKeyGuard, RateLimitGuard)
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Up to 255 printable ASCII characters. The same key with the same body within 24 h replays the first response (marked Idempotent-Replayed: true) and charges nothing more.',
  })
  @ApiOperation({ summary: 'Generate a thumbnail, synchronously or as a job reported by webhook' })
  @ApiOkResponse({
    type: GenerationResultDto,
    description: 'Synchronous result (no webhookUrl).',
    headers: CREDIT_HEADERS,
  })
  @ApiAcceptedResponse({
    type: JobAcceptedDto,
    description: 'Asynchronous job (webhookUrl given).',
    headers: CREDIT_HEADERS,
  })
  @ApiResponse({ status: 400, type: ErrorDto })
  @ApiResponse({ status: 401, type: ErrorDto })
  @ApiResponse({ status: 403, type: ErrorDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  @ApiResponse({ status: 409, type: ErrorDto, description: 'IDEMPOTENCY_KEY_IN_USE' })
  @ApiResponse({ status: 413, type: ErrorDto })
  @ApiResponse({ status: 422, type: ErrorDto, description: 'IDEMPOTENCY_KEY_REUSED' })
  @ApiResponse({
    status: 429,
    type: ErrorDto,
    description: 'RATE_LIMITED (per second) or GENERATION_LIMIT_EXCEEDED (monthly credits).',
    headers: {
      ...CREDIT_HEADERS,
      'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
    },
  })
  @ApiResponse({ status: 500, type: ErrorDto })
  async create(
    @Req() req: AuthenticatedRequest,
    @Body(new JsonObjectPipe(), apiValidationPipe()) body: GenerateRequestDto,
    @Res({ passthrough: true }) res: Response,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<GenerationResultDto | JobAcceptedDto> {
    const outcome = await this.generate.execute({
      principal: req.principal,
      request: normalizeGenerateRequest(body),
      idempotencyKey: idempotencyKey ?? null,
    });
    for (const [name, value] of Object.entries(outcome.headers)) res.setHeader(name, value);
    if (outcome.kind === 'accepted') res.status(202);
    return outcome.body;
  }
}
