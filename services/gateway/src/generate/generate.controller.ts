import { Body, Controller, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
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
import { GenerateUseCase } from './generate.usecase.js';

@ApiTags('generate')
@ApiSecurity('api-key')
@Controller('v1/generate')
export class GenerateController {
  constructor(private readonly generate: GenerateUseCase) {}

  @Post()
  @HttpCode(200)
  @UseGuards(ApiKeyGuard, RateLimitGuard)
  @ApiHeader({ name: 'x-api-key', required: true })
  @ApiOkResponse({ type: GenerationResultDto, description: 'Synchronous result (no webhookUrl).' })
  @ApiAcceptedResponse({ type: JobAcceptedDto, description: 'Asynchronous job (webhookUrl given).' })
  @ApiResponse({ status: 400, type: ErrorDto })
  @ApiResponse({ status: 401, type: ErrorDto })
  @ApiResponse({ status: 403, type: ErrorDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  @ApiResponse({ status: 413, type: ErrorDto })
  @ApiResponse({ status: 429, type: ErrorDto })
  @ApiResponse({ status: 500, type: ErrorDto })
  async create(
    @Req() req: AuthenticatedRequest,
    @Body(new JsonObjectPipe(), apiValidationPipe()) body: GenerateRequestDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GenerationResultDto | JobAcceptedDto> {
    const outcome = await this.generate.execute({
      principal: req.principal,
      request: normalizeGenerateRequest(body),
    });
    for (const [name, value] of Object.entries(outcome.headers)) res.setHeader(name, value);
    if (outcome.kind === 'accepted') res.status(202);
    return outcome.body;
  }
}
