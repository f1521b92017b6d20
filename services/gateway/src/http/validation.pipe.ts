import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ERROR_CODES } from '@thumbforge/contracts';
import { ApiException } from './api-exception.js';

/** When several rules fail for one field, the most basic one speaks: missing, then wrong type. */
const PRECEDENCE = ['isNotEmpty', 'isDefined', 'isString', 'isBoolean', 'isNumber', 'isArray'];

function firstMessage(errors: ValidationError[]): string {
  for (const error of errors) {
    const constraints = error.constraints ?? {};
    const rule = PRECEDENCE.find((name) => name in constraints) ?? Object.keys(constraints)[0];
    if (rule) return constraints[rule]!;
    const nested = firstMessage(error.children ?? []);
    if (nested) return nested;
  }
  return 'Invalid request body';
}

/**
 * DTO validation: unknown fields are dropped (the contract ignores them), no implicit type coercion
 * (`"true"` is not a boolean), and the first failing rule becomes the message.
 */
export function apiValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: false,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ApiException(400, ERROR_CODES.INVALID_REQUEST, firstMessage(errors)),
  });
}
