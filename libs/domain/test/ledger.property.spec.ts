import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PLANS, type ThumbforgeEvent } from '@thumbforge/contracts';
import {
  applyBillingFact,
  billingJobOf,
  decideOpenAccount,
  decideReservation,
  decideSettlement,
  LEDGER_UNREAD_FIELDS,
  remaining,
  replayBilling,
  type AccountLedger,
  type JobBilling,
  type LedgerEntry,
} from '../src/index.js';
import { ACCOUNT, jobSpec } from './fixtures.js';

type Command =
  | { kind: 'reserve'; job: number; cost: number }
  | { kind: 'capture'; job: number }
  | { kind: 'release'; job: number }
  | { kind: 'wait'; hours: number };

// A small pool of job ids so that duplicates and settlements of unknown jobs happen often.
const job = fc.integer({ min: 0, max: 40 });
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('reserve' as const),
      job,
      cost: fc.constantFrom(10, 12, 14, 16, 20, 22, 24, 26),
    }),
    weight: 5,
  },
  { arbitrary: fc.record({ kind: fc.constant('capture' as const), job }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('release' as const), job }), weight: 2 },
  {
    arbitrary: fc.record({ kind: fc.constant('wait' as const), hours: fc.integer({ min: 1, max: 24 * 45 }) }),
    weight: 1,
  },
);

/** A billing fact as a replay that leaves out `LEDGER_UNREAD_FIELDS` may read it. */
function withoutUnreadFields(event: ThumbforgeEvent): ThumbforgeEvent {
  const payload: Record<string, unknown> = { ...event.payload };
  for (const field of LEDGER_UNREAD_FIELDS[event.type] ?? []) delete payload[field];
  return { ...event, payload } as unknown as ThumbforgeEvent;
}

function invariantsHold(ledger: AccountLedger): void {
  expect(ledger.used + ledger.reserved).toBeLessThanOrEqual(ledger.allowance);
  expect(remaining(ledger)).toBeGreaterThanOrEqual(0);
  expect(remaining(ledger)).toBe(ledger.allowance - ledger.used - ledger.reserved);
  expect(ledger.reserved).toBe(Object.values(ledger.reservations).reduce((a, b) => a + b, 0));
}

describe('ledger properties', () => {
  it('never overdraws, and the fold of the emitted facts equals the live state', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PLANS), fc.array(command, { maxLength: 150 }), (plan, commands) => {
        let now = new Date('2026-01-20T08:00:00.000Z');
        const log: ThumbforgeEvent[] = [];
        const jobs = new Map<string, JobBilling>();
        const history: LedgerEntry[] = [];
        const apply = (state: AccountLedger | undefined, events: ThumbforgeEvent[]) => {
          log.push(...events);
          return events.reduce<AccountLedger | undefined>((s, e) => {
            const jobId = billingJobOf(e);
            const change = applyBillingFact(s, jobId === undefined ? undefined : jobs.get(jobId), e);
            if (change?.job) jobs.set(change.job.jobId, change.job.billing);
            if (change?.entry) history.push(change.entry);
            return change ? change.ledger : s;
          }, state);
        };

        let ledger = apply(
          undefined,
          decideOpenAccount(undefined, { accountId: ACCOUNT, plan, apiAccess: true }, now),
        )!;
        invariantsHold(ledger);
        commands.forEach((cmd, i) => {
          const causationId = `evt_cmd${i}`;
          let events: ThumbforgeEvent[] = [];
          if (cmd.kind === 'wait') {
            now = new Date(now.getTime() + cmd.hours * 3_600_000);
          } else if (cmd.kind === 'reserve') {
            const reservation = { job: jobSpec(`job_${cmd.job}`, { cost: cmd.cost }) };
            const decided = jobs.get(`job_${cmd.job}`);
            events = decideReservation(ledger, decided, reservation, now, { causationId });
            ledger = apply(ledger, events)!;
            // the same command again, after its facts were applied, decides nothing
            const after = jobs.get(`job_${cmd.job}`);
            expect(decideReservation(ledger, after, reservation, now, { causationId })).toEqual([]);
          } else {
            const outcome = cmd.kind === 'capture' ? 'captured' : 'released';
            events = decideSettlement(ledger, `job_${cmd.job}`, outcome, 'render failed', {
              causationId,
              at: now,
            });
            ledger = apply(ledger, events)!;
            expect(decideSettlement(ledger, `job_${cmd.job}`, outcome)).toEqual([]);
          }
          expect(events.length).toBeLessThanOrEqual(2);
          invariantsHold(ledger);
        });

        expect(ledger.entryCount).toBe(history.length);
        const expected = {
          ledgers: new Map([[ACCOUNT, ledger]]),
          jobs,
          histories: new Map([[ACCOUNT, history]]),
        };
        if (history.length === 0) expected.histories.clear();
        expect(replayBilling(log)).toEqual(expected);
        // at-least-once delivery: replaying the log twice over changes nothing
        expect(replayBilling([...log, ...log])).toEqual(expected);
        // nor does a replay that leaves out the fields the fold does not read
        expect(replayBilling(log.map(withoutUnreadFields))).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('a reset happens once per new month, at the first reservation', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 24 * 40 }), { minLength: 1, maxLength: 60 }), (gaps) => {
        let now = new Date('2026-01-01T00:00:00.000Z');
        let ledger = decideOpenAccount(
          undefined,
          { accountId: ACCOUNT, plan: 'business', apiAccess: true },
          now,
        ).reduce<AccountLedger | undefined>(
          (s, e) => applyBillingFact(s, undefined, e)?.ledger ?? s,
          undefined,
        )!;
        const months = new Set([now.toISOString().slice(0, 7)]);
        let starts = 1;
        gaps.forEach((hours, i) => {
          now = new Date(now.getTime() + hours * 3_600_000);
          months.add(now.toISOString().slice(0, 7));
          const events = decideReservation(ledger, undefined, { job: jobSpec(`job_${i}`) }, now);
          starts += events.filter((e) => e.type === 'billing.period-started').length;
          ledger = events.reduce<AccountLedger | undefined>(
            (s, e) => applyBillingFact(s, undefined, e)?.ledger ?? s,
            ledger,
          )!;
        });
        expect(starts).toBe(months.size);
        expect(ledger.periodStart.slice(0, 7)).toBe(now.toISOString().slice(0, 7));
      }),
      { numRuns: 100 },
    );
  });
});
