import { creditsAt, type AccountLedger } from '@thumbforge/domain';

/** X-RateLimit-* carry the monthly credits: allowance, what is left, and when the period resets. */
export function creditHeaders(ledger: AccountLedger | null | undefined, now: Date): Record<string, string> {
  if (!ledger) return {};
  const credits = creditsAt(ledger, now);
  return {
    'X-RateLimit-Limit': String(credits.allowance),
    'X-RateLimit-Remaining': String(credits.remaining),
    'X-RateLimit-Reset': credits.periodEnd,
  };
}
