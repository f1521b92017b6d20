import { refuseConnections, type RefusedConnections } from '@thumbforge/infra';
import { startLocalCluster, type LocalCluster, type ServiceName } from '@thumbforge/local-cluster';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, eventually, generate, type Json } from '@thumbforge/embedded/test/support/http.js';
import { TEST_CLUSTER_ENV } from './cluster.js';

/** Sync requests while S3 is down: enough for every circuit to open and several requests after that. */
const OUTAGE_REQUESTS = 12;
const SD_COST = 10;
/** Connections the S3 client makes per call at most (`maxAttempts` of `S3ObjectStore`). */
const ATTEMPTS_PER_CALL = 2;

interface CircuitOpened {
  service: ServiceName;
  /** Connection attempts counted when the line arrived: later attempts came after the opening. */
  attemptsBefore: number;
  /** Outage requests sent before the line arrived. */
  requestsBefore: number;
}

function decodeDataUrl(image: string): Buffer {
  const match = /^data:image\/webp;base64,(.+)$/.exec(image);
  if (!match) throw new Error(`not a WebP data URI: ${image.slice(0, 40)}`);
  return Buffer.from(match[1]!, 'base64');
}

/** A 200 carrying a youtube sd WebP (spec §2.2: 1280×720) that decodes. */
async function expectThumbnail(res: Json): Promise<Buffer> {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({ format: 'youtube', outputFormat: 'webp' });
  const bytes = decodeDataUrl(res.body.image);
  const meta = await sharp(bytes).metadata();
  expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1280, 720]);
  return bytes;
}

describe('cluster mode: S3 outage', () => {
  let cluster: LocalCluster;
  let account: { accountId: string; apiKey: string };
  let s3Port: number;
  let requestsMade = 0;
  /** Set while S3 is stopped; its port is held by a stand-in that counts connection attempts. */
  let outage: RefusedConnections | undefined;
  let outageRequestsSent = 0;
  const circuitsOpened: CircuitOpened[] = [];
  const halfOpened: ServiceName[] = [];

  beforeAll(async () => {
    cluster = await startLocalCluster({
      env: TEST_CLUSTER_ENV,
      onProgress: () => {},
      onOutput: (service, line) => {
        if (!outage) return;
        if (line.includes('object store circuit open'))
          circuitsOpened.push({
            service,
            attemptsBefore: outage.attempts,
            requestsBefore: outageRequestsSent,
          });
        if (line.includes('object store circuit half-open')) halfOpened.push(service);
      },
    });
    account = await admin(cluster.gatewayUrl).createAccount('pro');
    s3Port = Number(new URL(cluster.infra.s3.endpoint).port);
  });
  afterAll(async () => {
    await outage?.close();
    await cluster?.stop();
  });

  const sync = (title: string) => {
    requestsMade += 1;
    return generate(cluster.gatewayUrl, account.apiKey, { title, format: 'youtube' });
  };

  const expectFetchable = async (res: Json, image: Buffer) => {
    expect(res.body.imageUrl).toBe(
      `${cluster.cdnUrl}/users/${account.accountId}/generations/${res.body.generationId}.webp`,
    );
    const cdn = await fetch(res.body.imageUrl);
    expect(cdn.status).toBe(200);
    expect(Buffer.from(await cdn.arrayBuffer()).equals(image)).toBe(true);
  };

  it('with S3 up, a sync request gets its image at imageUrl', async () => {
    const res = await sync('Before the outage');
    await expectFetchable(res, await expectThumbnail(res));
  });

  it('with S3 stopped, sync requests still return their images with imageUrl null, charged as usual, and the circuit opens', async () => {
    await cluster.infra.stopServer('s3');
    outage = await refuseConnections(s3Port);

    for (let i = 0; i < OUTAGE_REQUESTS; i++) {
      outageRequestsSent += 1;
      const res = await sync(`During the outage ${i}`);
      await expectThumbnail(res);
      expect(res.body.imageUrl).toBeNull();
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(2500 - SD_COST * requestsMade);
    }
    expect(outage.attempts, 'the services did try S3 before giving up on it').toBeGreaterThan(0);

    // Whichever services call S3 on the sync path log their circuit opening; at least one must.
    const firstOpenings = circuitsOpened.filter(
      (c, i) => circuitsOpened.findIndex((d) => d.service === c.service) === i,
    );
    expect(firstOpenings.length, 'object store circuit open in some service output').toBeGreaterThan(0);
    // Once every circuit that opened is open, calls fail without a connection: later requests make
    // none, except a trial call after a circuit half-opens (on a machine slow enough to take the reset
    // timeout for the rest of the loop).
    const lastOpened = firstOpenings[firstOpenings.length - 1]!;
    expect(
      OUTAGE_REQUESTS - lastOpened.requestsBefore,
      'requests sent after every circuit opened',
    ).toBeGreaterThanOrEqual(3);
    expect(outage.attempts - lastOpened.attemptsBefore).toBeLessThanOrEqual(
      ATTEMPTS_PER_CALL * halfOpened.length,
    );

    const a = admin(cluster.gatewayUrl);
    await eventually(async () => (await a.account(account.accountId)).body.credits.reserved === 0);
    expect((await a.account(account.accountId)).body.credits).toMatchObject({
      used: SD_COST * requestsMade,
      reserved: 0,
    });
    const kinds = (await a.ledger(account.accountId)).body.map((e: { kind: string }) => e.kind);
    expect(kinds.filter((k: string) => k === 'captured')).toHaveLength(requestsMade);
    expect(kinds).not.toContain('released');
  });

  it('once S3 is back, the circuit closes after its reset timeout and images get their imageUrl again', async () => {
    await outage!.close();
    outage = undefined;
    await cluster.infra.startServer('s3');
    const a = admin(cluster.gatewayUrl);
    await eventually(async () => (await a.account(account.accountId)).body.credits.reserved === 0);
    let remaining: number = (await a.account(account.accountId)).body.credits.remaining;

    // The circuit stays open until its reset timeout, then a trial call closes it.
    const { res, image } = await eventually(
      async () => {
        const res = await sync('After the outage');
        const image = await expectThumbnail(res);
        remaining -= SD_COST;
        expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(remaining);
        return res.body.imageUrl === null ? undefined : { res, image };
      },
      60_000,
      1_000,
    );
    await expectFetchable(res, image);
  });
});
