import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ERROR_CODES } from '@thumbforge/contracts';
import { OBJECT_STORE, type ObjectStore } from '@thumbforge/object-store';
import type { Response } from 'express';
import { ApiException } from '../http/api-exception.js';

/** Embedded mode's `{cdn_url}`: the public bucket over HTTP. A real CDN takes this role in a cluster. */
@ApiExcludeController()
@Controller('cdn')
export class CdnController {
  constructor(@Inject(OBJECT_STORE) private readonly objects: ObjectStore) {}

  @Get('*key')
  async get(@Param('key') key: string | string[], @Res() res: Response): Promise<void> {
    const path = Array.isArray(key) ? key.join('/') : key;
    let object: Awaited<ReturnType<ObjectStore['stream']>>;
    try {
      object = await this.objects.stream('public', path);
    } catch {
      object = undefined;
    }
    if (!object) throw new ApiException(404, ERROR_CODES.NOT_FOUND, 'Not found');
    res.setHeader('Content-Type', object.contentType);
    res.setHeader('Content-Length', String(object.size));
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    object.stream.pipe(res);
  }
}
