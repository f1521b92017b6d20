import type { Model } from './formats.js';

export const PLANS = ['free', 'creator', 'pro', 'business'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanTerms {
  /** Credits per calendar month (UTC), no rollover. */
  monthlyCredits: number;
  /** Requests per second per API key (DESIGN §4). */
  ratePerSecond: number;
  hd: boolean;
  /** Saved photo, saved logo and reference sets. */
  savedAssets: boolean;
}

export const PLAN_TERMS: Record<Plan, PlanTerms> = {
  free: { monthlyCredits: 50, ratePerSecond: 1, hd: false, savedAssets: false },
  creator: { monthlyCredits: 750, ratePerSecond: 2, hd: false, savedAssets: false },
  pro: { monthlyCredits: 2500, ratePerSecond: 5, hd: true, savedAssets: true },
  business: { monthlyCredits: 10000, ratePerSecond: 20, hd: true, savedAssets: true },
};

/** Webhook plans are configuration (WEBHOOK_PLANS); this is the documented default. */
export const DEFAULT_WEBHOOK_PLANS: readonly Plan[] = ['pro', 'business'];

export interface CostInput {
  model: Model;
  usePhoto: boolean;
  useLogo: boolean;
  customAssetsId?: string | null;
}

/** Spec §8: base 10 (sd) or 20 (hd), +2 for each of photo, logo and reference set. */
export function costOf(input: CostInput): number {
  return (
    (input.model === 'hd' ? 20 : 10) +
    (input.usePhoto ? 2 : 0) +
    (input.useLogo ? 2 : 0) +
    (input.customAssetsId ? 2 : 0)
  );
}
