import { makeEvent, TOPICS, type JobAssetsRequestedV1, type StoredEvent } from '@thumbforge/contracts';
import { isOwnerFenced } from '@thumbforge/domain';
import type { EventLog } from '@thumbforge/event-log';
import { ReadinessRegistry } from '@thumbforge/platform';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { AssetConsumer } from '../src/asset.consumer.js';
import { CreateReferenceSetUseCase } from '../src/create-reference-set/create-reference-set.usecase.js';
import { AssetProjection } from '../src/projection/asset-projection.js';
import { RemoveLogoUseCase } from '../src/remove-logo/remove-logo.usecase.js';
import { RemovePhotoUseCase } from '../src/remove-photo/remove-photo.usecase.js';
import { RemoveReferenceSetUseCase } from '../src/remove-reference-set/remove-reference-set.usecase.js';
import { ResolveJobAssetsUseCase } from '../src/resolve-job-assets/resolve-job-assets.usecase.js';
import { SaveLogoUseCase } from '../src/save-logo/save-logo.usecase.js';
import { SavePhotoUseCase } from '../src/save-photo/save-photo.usecase.js';
import { FakeClock, MemoryEventLog, silentLogger } from './fakes.js';

export const ACCOUNT = 'acc_TEST';
export const NOW = '2026-04-10T12:00:00.000Z';

/** The asset service wired by hand on fake ports, the way Nest wires it from AssetModule. */
export function assetService<L extends EventLog = MemoryEventLog>(
  log: L = new MemoryEventLog() as EventLog as L,
) {
  const store = new MemoryProjectionStore();
  const clock = new FakeClock(new Date(NOW));
  const readiness = new ReadinessRegistry();
  const projection = new AssetProjection(log, store);
  const savePhoto = new SavePhotoUseCase(projection, clock);
  const removePhoto = new RemovePhotoUseCase(projection, clock);
  const saveLogo = new SaveLogoUseCase(projection, clock);
  const removeLogo = new RemoveLogoUseCase(projection, clock);
  const createReferenceSet = new CreateReferenceSetUseCase(projection, clock);
  const removeReferenceSet = new RemoveReferenceSetUseCase(projection, clock);
  const resolveJobAssets = new ResolveJobAssetsUseCase(projection, clock);
  const consumer = new AssetConsumer(
    log,
    projection,
    readiness,
    silentLogger,
    savePhoto,
    removePhoto,
    saveLogo,
    removeLogo,
    createReferenceSet,
    removeReferenceSet,
    resolveJobAssets,
  );
  return {
    log,
    store,
    clock,
    readiness,
    projection,
    savePhoto,
    removePhoto,
    saveLogo,
    removeLogo,
    createReferenceSet,
    removeReferenceSet,
    resolveJobAssets,
    consumer,
  };
}
export type AssetService = ReturnType<typeof assetService<MemoryEventLog>>;

let jobs = 0;
export function jobAssetsRequest(overrides: Partial<JobAssetsRequestedV1> = {}): JobAssetsRequestedV1 {
  return {
    jobId: `job_${++jobs}`,
    accountId: ACCOUNT,
    plan: 'pro',
    requestedFormat: 'youtube',
    usePhoto: false,
    useLogo: false,
    customAssetsId: null,
    inlinePhotoKey: null,
    inlineLogoKey: null,
    ...overrides,
  };
}

export function jobAssetsRequested(request: JobAssetsRequestedV1) {
  return makeEvent('asset.job-assets-requested', request.accountId, request, {
    correlationId: request.jobId,
  });
}

/** The asset facts on the log, without commands. */
export function facts(s: AssetService): StoredEvent[] {
  return s.log.events(TOPICS.assets).filter((e) => !e.type.endsWith('-requested') && !isOwnerFenced(e));
}

/** Resolves once `predicate` holds; the consumer works asynchronously. */
export async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setImmediate(resolve));
}
