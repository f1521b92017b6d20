import type { Plan } from '@thumbforge/contracts';
import type { Request } from 'express';
import type { AccountDoc } from '../read-model/gateway-read-model.js';

export type Principal =
  | { kind: 'account'; accountId: string; apiKey: string; plan: Plan; account: AccountDoc }
  | { kind: 'public-test'; apiKey: string; clientAddress: string };

export type AuthenticatedRequest = Request & { principal: Principal; id: string };
