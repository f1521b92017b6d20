export { BillingModule } from './billing.module.js';
export { LedgerProjection } from './ledger/ledger-projection.js';
export { OpenAccountUseCase } from './open-account/open-account.usecase.js';
export { ReserveCreditsUseCase } from './reserve-credits/reserve-credits.usecase.js';
