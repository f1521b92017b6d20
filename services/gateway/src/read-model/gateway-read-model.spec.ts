import { TOPICS, type StoredEvent } from '@thumbforge/contracts';
import { exampleJobSpec } from '@thumbforge/contracts/testing';
import {
  decideOpenAccount,
  decideReservation,
  decideSettlement,
  foldLedger,
  ledgerPageId,
  type LedgerPage,
} from '@thumbforge/domain';
import { MemoryEventLog } from '@thumbforge/event-log/testing';
import { ReadinessRegistry } from '@thumbforge/platform';
import { MemoryProjectionStore, type ProjectionStore } from '@thumbforge/projection-store';
import { asSecondWriter } from '@thumbforge/projection-store/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BILLED_JOBS, GatewayReadModel, LEDGER_PAGES, legacyLedgerPageId } from './gateway-read-model.js';

const ACCOUNT = 'acc_1';
const NOW = new Date('2026-04-10T12:00:00.000Z');
const job = exampleJobSpec({ accountId: ACCOUNT, requestedAt: NOW.toISOString() });

const models: GatewayReadModel[] = [];
afterEach(async () => {
  for (const model of models.splice(0)) await model.beforeApplicationShutdown();
});

async function started(
  log: MemoryEventLog,
  store: ProjectionStore = new MemoryProjectionStore(),
): Promise<GatewayReadModel> {
  const model = new GatewayReadModel(log, store, new ReadinessRegistry());
  models.push(model);
  await model.onApplicationBootstrap();
  return model;
}

const append = (log: MemoryEventLog, facts: Parameters<MemoryEventLog['append']>[1]) =>
  log.append(TOPICS.billing, facts, { key: ACCOUNT });

/** The account opened on the log, then the job's credits reserved: the reservation as stored. */
async function openAndReserve(log: MemoryEventLog): Promise<StoredEvent> {
  await append(log, decideOpenAccount(undefined, { accountId: ACCOUNT, plan: 'pro', apiAccess: true }, NOW));
  const opened = foldLedger(log.events(TOPICS.billing))[ACCOUNT]!;
  const [reserved] = await append(
    log,
    decideReservation(opened, undefined, { job }, NOW, { causationId: 'evt_cmd' }),
  );
  return reserved!;
}

describe("GatewayReadModel: billing's facts", () => {
  it('a fact appended twice (a retried append: same id, a later offset) is folded once', async () => {
    const log = new MemoryEventLog();
    const model = await started(log);
    await append(
      log,
      decideOpenAccount(undefined, { accountId: ACCOUNT, plan: 'pro', apiAccess: true }, NOW),
    );
    const opened = foldLedger(log.events(TOPICS.billing))[ACCOUNT]!;
    const [reserved] = decideReservation(opened, undefined, { job }, NOW, { causationId: 'evt_cmd' });
    const [first] = await append(log, [reserved!]);
    const [again] = await append(log, [reserved!]);
    expect(again!.id).toBe(first!.id);
    await model.reached(again!);
    expect((await model.account(ACCOUNT))!.ledger).toMatchObject({
      reserved: 10,
      reservations: { [job.jobId]: 10 },
    });

    const held = foldLedger(log.events(TOPICS.billing))[ACCOUNT]!;
    const settled = decideSettlement(held, job.jobId, 'captured', undefined, { at: NOW });
    const stored: StoredEvent[] = await append(log, settled);
    await model.reached(stored.at(-1)!);
    const { ledger } = (await model.account(ACCOUNT))!;
    expect(ledger).toMatchObject({ used: 10, reserved: 0, reservations: {} });
    expect((await model.ledgerEntries(ledger!)).map((e) => e.kind)).toEqual([
      'period-started',
      'reserved',
      'captured',
    ]);
    expect(await model.billedJobBillings()).toEqual(new Map([[job.jobId, 'captured']]));
  });

  it('reads the history an earlier release wrote in pages of 100, and adds to it in pages of its own', async () => {
    const log = new MemoryEventLog();
    const store = new MemoryProjectionStore();
    const before = await started(log, store);
    await before.reached(await openAndReserve(log));
    await before.beforeApplicationShutdown();
    models.splice(models.indexOf(before), 1);
    // The same two entries as an earlier release stored them: one page of 100, its id without the size.
    const pages = store.collection<LedgerPage>(LEDGER_PAGES);
    const [page] = await pages.find({ accountId: ACCOUNT });
    expect(page).toMatchObject({ id: ledgerPageId(ACCOUNT, 0), first: 0 });
    const { first: _, ...legacy } = page!;
    await pages.delete(page!.id);
    await pages.put({ ...legacy, id: legacyLedgerPageId(ACCOUNT, 0) } as LedgerPage);

    const after = await started(log, store);
    const held = foldLedger(log.events(TOPICS.billing))[ACCOUNT]!;
    const stored = await append(log, decideSettlement(held, job.jobId, 'captured', undefined, { at: NOW }));
    await after.reached(stored.at(-1)!);
    const { ledger } = (await after.account(ACCOUNT))!;
    expect((await after.ledgerEntries(ledger!)).map((e) => e.kind)).toEqual([
      'period-started',
      'reserved',
      'captured',
    ]);
    expect(await pages.get(ledgerPageId(ACCOUNT, 0))).toMatchObject({
      first: 2,
      entries: [{ kind: 'captured' }],
    });
  });

  it('forgets its cached job billing for a fact another writer applied first', async () => {
    const log = new MemoryEventLog();
    const store = new MemoryProjectionStore();
    const first = await started(log, store);
    await first.reached(await openAndReserve(log));
    // A second writer over the same documents, from the start of the log: every fact is folded already.
    const forget = vi.fn();
    const second = await started(log, asSecondWriter(store, forget, [BILLED_JOBS]));
    await second.reachedEnds();
    expect(forget).toHaveBeenCalledWith(job.jobId);
    expect(await second.billedJobBillings()).toEqual(new Map([[job.jobId, 'reserved']]));
  });
});
