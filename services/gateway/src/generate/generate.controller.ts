import { Body, Controller, Headers, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiHeader,
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
} from '@thumbforge/contracts';
import type { Response } from 'express';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import type { AuthenticatedRequest } from '../auth/principal.js';
import { JsonObjectPipe } from '../http/json-object.pipe.js';
import { apiValidationPipe } from '../http/validation.pipe.js';
import { RateLimitGuard } from '../rate-limit/rate-limit.guard.js';
import { IdempotentGenerateUseCase } from '../idempotency/idempotent-generate.usecase.js';

@ApiTags('generate')
@ApiSecurity('api-key')
@Controller('v1/generate')
export class GenerateController {
  constructor(private readonly generate: IdempotentGenerateUseCase) {}

  @Post()
  @HttpCode(200)
  @UseGuards(ApiKeyGuard, RateLimitGuard)
  @ApiHeader({ name: 'x-api-key', required: true })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Up to 255 printable ASCII characters. The same key with the same body within 24 h replays the first response (marked Idempotent-Replayed: true) and charges nothing more.',
  })
  @ApiOkResponse({ type: GenerationResultDto, description: 'Synchronous result (no webhookUrl).' })
  @ApiAcceptedResponse({ type: JobAcceptedDto, description: 'Asynchronous job (webhookUrl given).' })
  @ApiResponse({ status: 400, type: ErrorDto })
  @ApiResponse({ status: 401, type: ErrorDto })
  @ApiResponse({ status: 403, type: ErrorDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  @ApiResponse({ status: 409, type: ErrorDto, description: 'IDEMPOTENCY_KEY_IN_USE' })
  @ApiResponse({ status: 413, type: ErrorDto })
  @ApiResponse({ status: 422, type: ErrorDto, description: 'IDEMPOTENCY_KEY_REUSED' })
  @ApiResponse({ status: 429, type: ErrorDto })
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
