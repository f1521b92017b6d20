import {
  CATEGORIES,
  costOf,
  FORMATS,
  generationIdFor,
  LOGO_POSITIONS,
  makeEvent,
  PLAN_TERMS,
  type EventEnvelope,
  type JobSpec,
  type Plan,
} from '@thumbforge/contracts';
import {
  decideOpenAccount,
  decideReservation,
  decideSettlement,
  emptyBillingReplay,
  foldBillingEvent,
  type AccountLedger,
} from '@thumbforge/domain';

export interface BillingHistoryOptions {
  /** Events on the topic, commands and facts alike; the history stops at exactly this many. */
  events: number;
  accounts: number;
  /** Events per chunk handed out. */
  chunk: number;
  /** When the history starts (default 2026-01-03); it spans five weeks, so it crosses into a new month. */
  start?: Date;
  seed?: number;
}

export interface BillingHistory {
  /** The events, in log order, `chunk` at a time. */
  chunks: Iterable<EventEnvelope[]>;
  /** The ledgers billing holds once every event handed out so far is applied. */
  ledgers: ReadonlyMap<string, AccountLedger>;
}

/** Share of accounts per plan: most are small, a few business accounts make many jobs. */
const PLAN_MIX: ReadonlyArray<[Plan, number]> = [
  ['free', 0.3],
  ['creator', 0.4],
  ['pro', 0.25],
  ['business', 0.05],
];
/** Renders still running at a time: a job's capture or release comes this many reservations later. */
const IN_FLIGHT_JOBS = 20;
const CAPTURED_SHARE = 0.97;
const SPAN_MS = 35 * 86_400_000;
const TITLES = [
  'I Tried Every AI Thumbnail Tool So You Do Not Have To',
  'Weekly news: what changed in the markets',
  'How to bake sourdough bread at home in 24 hours',
  '10 travel hacks for long flights',
  'The best budget mechanical keyboards of the year',
  'Beginner yoga: a 20 minute morning routine',
  'Why this startup failed after raising 40 million',
  'Speedrunning the hardest level, world record attempt',
];
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** mulberry32: a small seeded generator, so every run (and every log) gets the same history. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The billing topic of a busy installation, made with the same decisions billing makes: accounts are
 * opened (command, then `account-opened` and `period-started`), and each job is a reservation command
 * answered by `credits-reserved` (after a `period-started` in a new month) or `credits-rejected` once
 * an allowance is spent, then captured or released a few jobs later. Jobs go to accounts in proportion
 * to their plan's allowance times an activity of their own. Deterministic for a seed; ids have the
 * shape of real ones.
 */
export function billingHistory(options: BillingHistoryOptions): BillingHistory {
  const random = seededRandom(options.seed ?? 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const billing = emptyBillingReplay();
  const { ledgers } = billing;

  const id = (prefix: string, at: number): string => {
    let time = '';
    for (let i = 0, rest = at; i < 10; i++, rest = Math.floor(rest / 32)) time = CROCKFORD[rest % 32] + time;
    let tail = '';
    for (let i = 0; i < 16; i++) tail += CROCKFORD[Math.floor(random() * 32)];
    return `${prefix}_${time}${tail}`;
  };

  // Applied as each event is handed out, before the next decision: the ledgers never run ahead.
  const apply = (event: EventEnvelope) => foldBillingEvent(billing, event);

  const start = (options.start ?? new Date('2026-01-03T00:00:00Z')).getTime();
  // Three events per account opened, about three per job.
  const stepMs = Math.max(1, Math.floor(SPAN_MS / Math.max(1, (options.events - 3 * options.accounts) / 3)));
  const accounts: { accountId: string; plan: Plan }[] = [];
  for (let i = 0; i < options.accounts; i++) {
    let roll = random();
    const plan = PLAN_MIX.find(([, share]) => (roll -= share) < 0)?.[0] ?? 'free';
    accounts.push({ accountId: id('acc', start + i), plan });
  }
  // A job picks its account in proportion to the allowance times the account's activity (0.2 to 3.2,
  // most near the low end): a uniform draw over the cumulative weights.
  const cumulative: number[] = [];
  let total = 0;
  for (const { plan } of accounts) {
    cumulative.push((total += PLAN_TERMS[plan].monthlyCredits * (0.2 + 3 * random() ** 3)));
  }
  const weightedAccount = () => {
    const target = random() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > target) hi = mid;
      else lo = mid + 1;
    }
    return accounts[lo]!;
  };

  const jobFor = (accountId: string, plan: Plan, at: number): JobSpec => {
    const jobId = id('job', at);
    const rich = PLAN_TERMS[plan].savedAssets;
    const usePhoto = rich && random() < 0.3;
    const useLogo = rich && random() < 0.2;
    const customAssetsId = rich && random() < 0.1 ? id('ref', at) : null;
    const model = PLAN_TERMS[plan].hd && random() < 0.2 ? 'hd' : 'sd';
    return {
      jobId,
      generationId: generationIdFor(jobId),
      accountId,
      title: `${pick(TITLES)} #${Math.floor(random() * 1000)}`,
      category: pick(CATEGORIES),
      model,
      outputFormat: random() < 0.8 ? 'webp' : 'png',
      usePhoto,
      useLogo,
      customAssetsId,
      cost: costOf({ model, usePhoto, useLogo, customAssetsId }),
      webhookUrl: rich && random() < 0.3 ? 'https://hooks.example.com/thumbforge' : null,
      requestedAt: new Date(at).toISOString(),
      format: pick(FORMATS),
      photoKey: usePhoto ? `assets/${accountId}/photo` : null,
      logo: useLogo
        ? {
            key: `assets/${accountId}/logo`,
            position: pick(LOGO_POSITIONS),
            size: 0.2,
            dropShadow: random() < 0.5,
          }
        : null,
      references: customAssetsId
        ? { setId: customAssetsId, imageKeys: [1, 2, 3].map((n) => `assets/${accountId}/refs/${n}`) }
        : null,
    };
  };

  function* events(): Generator<EventEnvelope> {
    for (const { accountId, plan } of accounts) {
      const at = new Date(start);
      const command = makeEvent(
        'billing.account-open-requested',
        accountId,
        { accountId, plan, apiAccess: true },
        { id: id('evt', start), correlationId: accountId, occurredAt: at },
      );
      const facts = decideOpenAccount(undefined, command.payload, at, { causationId: command.id });
      yield command;
      yield* facts;
    }
    const running: { accountId: string; jobId: string }[] = [];
    for (let at = start + 60_000; ; at += stepMs) {
      const { accountId, plan } = weightedAccount();
      const now = new Date(at);
      const job = jobFor(accountId, plan, at);
      const command = makeEvent(
        'billing.reservation-requested',
        accountId,
        { job },
        { id: id('evt', at), correlationId: job.jobId, occurredAt: now },
      );
      const decided = decideReservation(ledgers.get(accountId)!, billing.jobs.get(job.jobId), { job }, now, {
        causationId: command.id,
      });
      yield command;
      yield* decided;
      if (decided.some((fact) => fact.type === 'billing.credits-reserved'))
        running.push({ accountId, jobId: job.jobId });
      if (running.length > IN_FLIGHT_JOBS) {
        const done = running.shift()!;
        const captured = random() < CAPTURED_SHARE;
        const settled = decideSettlement(
          ledgers.get(done.accountId)!,
          done.jobId,
          captured ? 'captured' : 'released',
          captured ? undefined : 'The image could not be rendered',
          { causationId: `evt_render_${done.jobId}`, at: now },
        );
        yield* settled;
      }
    }
  }

  function* chunks(): Generator<EventEnvelope[]> {
    let left = options.events;
    if (left <= 0) return;
    let chunk: EventEnvelope[] = [];
    for (const event of events()) {
      apply(event);
      chunk.push(event);
      left -= 1;
      if (chunk.length === options.chunk || left === 0) {
        yield chunk;
        chunk = [];
      }
      if (left === 0) break;
    }
  }

  return { chunks: chunks(), ledgers };
}
