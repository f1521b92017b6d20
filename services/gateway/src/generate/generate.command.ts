import type { NormalizedGenerateRequest } from '@thumbforge/contracts/api';
import type { Principal } from '../auth/principal.js';

export interface GenerateCommand {
  principal: Principal;
  request: NormalizedGenerateRequest;
  /** Set when an idempotency key has claimed the job id in advance. */
  jobId?: string;
}
