import { Module } from '@nestjs/common';
import { BillingConsumer } from './billing.consumer.js';
import { ChangeAccountUseCase } from './change-account/change-account.usecase.js';
import { LedgerProjection } from './ledger/ledger-projection.js';
import { OpenAccountUseCase } from './open-account/open-account.usecase.js';
import { ReserveCreditsUseCase } from './reserve-credits/reserve-credits.usecase.js';
import { SettleCreditsUseCase } from './settle-credits/settle-credits.usecase.js';

/**
 * Billing: accounts, plans and the credit ledger. Expects the global EVENT_LOG, PROJECTION_STORE,
 * CLOCK and LOGGER tokens and the ReadinessRegistry from the composition root.
 */
@Module({
  providers: [
    LedgerProjection,
    OpenAccountUseCase,
    ChangeAccountUseCase,
    ReserveCreditsUseCase,
    SettleCreditsUseCase,
    BillingConsumer,
  ],
})
export class BillingModule {}
