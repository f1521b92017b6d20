import { Injectable, type PipeTransform } from '@nestjs/common';
import { ERROR_CODES } from '@thumbforge/contracts';
import { ApiException } from './api-exception.js';

/** Requests must carry a JSON object; anything else (no body, another Content-Type, an array) is a 400. */
@Injectable()
export class JsonObjectPipe implements PipeTransform {
  transform(value: unknown): unknown {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ApiException(
        400,
        ERROR_CODES.INVALID_REQUEST,
        'Request body must be a JSON object sent with Content-Type: application/json',
      );
    }
    return value;
  }
}
