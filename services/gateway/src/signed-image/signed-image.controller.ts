import { Controller, Get, Headers, Param, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ERROR_CODES } from '@thumbforge/contracts';
import { ErrorDto } from '@thumbforge/contracts/api';
import type { Request, Response } from 'express';
import { ApiException } from '../http/api-exception.js';
import { SIGNED_IMAGE_PARAMS, type SignedImageParams } from './signed-url.js';
import { SignedImageUseCase } from './signed-image.usecase.js';

const FILE = /^(acc_[A-Za-z0-9]+)\.(webp|png)$/;

@ApiTags('signed images')
@Controller('v1/og')
export class SignedImageController {
  constructor(private readonly signedImage: SignedImageUseCase) {}

  @Get(':file')
  @ApiOperation({
    summary: 'A signed image URL, usable as og:image',
    description:
      'Renders on the first fetch (charged once per distinct parameter set), then served from storage. The signature is the base64url HMAC-SHA256, keyed with the account URL signing secret, of the path, "?" and the known parameters sorted by name as name=value pairs joined by "&", each part percent-encoded like encodeURIComponent.',
  })
  @ApiParam({
    name: 'file',
    example: 'acc_01J0000000000000000000000.webp',
    description: '{accountId}.{webp|png}',
  })
  @ApiQuery({ name: 'title', required: true })
  @ApiQuery({ name: 'format', required: true })
  @ApiQuery({ name: 'category', required: false })
  @ApiQuery({ name: 'model', required: false })
  @ApiQuery({ name: 'usePhoto', required: false, enum: ['true', 'false'] })
  @ApiQuery({ name: 'useLogo', required: false, enum: ['true', 'false'] })
  @ApiQuery({ name: 'customAssetsId', required: false })
  @ApiQuery({ name: 'exp', required: false, description: 'Expiry, Unix seconds' })
  @ApiQuery({ name: 'sig', required: true })
  // The image types belong to the 200 alone: every error is the usual JSON body.
  @ApiResponse({
    status: 200,
    description: 'The image; ETag and Cache-Control set.',
    content: {
      'image/webp': { schema: { type: 'string', format: 'binary' } },
      'image/png': { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ApiResponse({ status: 304, description: 'If-None-Match matched.' })
  @ApiResponse({ status: 400, type: ErrorDto })
  @ApiResponse({ status: 403, type: ErrorDto, description: 'INVALID_SIGNATURE or URL_EXPIRED' })
  @ApiResponse({ status: 404, type: ErrorDto, description: 'Not an {accountId}.{webp|png} file name' })
  @ApiResponse({ status: 429, type: ErrorDto })
  async get(
    @Param('file') file: string,
    @Req() req: Request,
    @Res() res: Response,
    @Headers('if-none-match') ifNoneMatch?: string,
  ): Promise<void> {
    const match = FILE.exec(file);
    if (!match) throw new ApiException(404, ERROR_CODES.NOT_FOUND, 'Not found');
    const query = new URL(req.originalUrl, 'http://localhost').searchParams;
    const params: SignedImageParams = {};
    for (const name of [...SIGNED_IMAGE_PARAMS, 'sig'] as const) {
      const values = query.getAll(name);
      if (values.length > 1) {
        throw new ApiException(400, ERROR_CODES.INVALID_REQUEST, `${name} must be given once`);
      }
      if (values.length === 1 && name !== 'sig') params[name] = values[0];
    }
    const outcome = await this.signedImage.execute({
      accountId: match[1]!,
      outputFormat: match[2] as 'webp' | 'png',
      params,
      signature: query.get('sig') ?? undefined,
      ifNoneMatch,
    });
    res.set(outcome.headers);
    if (outcome.kind === 'not-modified') {
      res.status(304).end();
      return;
    }
    res.status(200).send(outcome.body);
  }
}
