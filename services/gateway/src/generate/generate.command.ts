import type { NormalizedGenerateRequest } from '@thumbforge/contracts';
import type { Principal } from '../auth/principal.js';

export interface GenerateCommand {
  principal: Principal;
  request: NormalizedGenerateRequest;
}
