import { createServer, type Server } from 'node:http';
import type { LocalCluster, ServiceName } from '@thumbforge/local-cluster';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, eventually, generate, request } from '@thumbforge/embedded/test/support/http.js';
import { startTestCluster } from './cluster.js';

/** Async jobs per crash (CRASH_JOBS overrides it when reproducing one case by hand). */
const JOBS = Number(process.env.CRASH_JOBS ?? 200);
/**
 * Two processes of every service but asset: a killed replica's partitions, projection leases and
 * webhook timers move to the other while it is down.
 */
const REPLICAS = { gateway: 2, billing: 2, rendering: 2, 'webhook-delivery': 2 };
/**
 * The shared suites' 300 ms webhook deadline is for testing timeouts; here a receiver that answers
 * after 150 ms on a loaded machine missed it on four attempts in a row, and the delivery was rightly
 * given up. These crashes are about what survives a kill, so the deadline leaves room for load.
 */
const CRASH_ENV = { WEBHOOK_TIMEOUT_MS: '10000' };
/** Requests in flight at once, so a crash lands in the middle of the stream. */
const CONCURRENCY = 8;

interface JobBody {
  status?: string;
  webhook?: { status: string; attempts: number; lastError: string | null } | null;
}

interface Delivery {
  jobId: string;
  body: string;
}

/** Records every webhook attempt; answers each after `delayMs`, so attempts are in flight for a while. */
async function startRecorder(delayMs: number) {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      deliveries.push({ jobId: JSON.parse(body).jobId, body });
      setTimeout(() => res.writeHead(200).end('ok'), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Crash {
  service: ServiceName;
  /** Decides, after each accepted job, whether now is the moment to kill the service. */
  when(accepted: number, delivered: number): boolean;
  /** How long the receiver takes to answer an attempt. */
  receiverDelayMs: number;
}

describe('cluster mode: kill -9 under load loses nothing', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startTestCluster(CRASH_ENV, REPLICAS);
  });
  afterAll(() => cluster?.stop());
  afterEach((context) => {
    // What the processes said last is what explains a failed batch.
    if (context.task.result?.state !== 'fail' || !cluster) return;
    for (const [service, replicas] of Object.entries(cluster.replicas)) {
      for (const [i, proc] of replicas.entries()) {
        process.stderr.write(`--- ${service}#${i} (last lines)\n${proc.output.slice(-40).join('\n')}\n`);
      }
    }
  });

  /**
   * Sends JOBS async generations with a webhook and kills the service with SIGKILL once `crash.when`
   * says so, then starts it again. Requests refused while the gateway is down are not accepted jobs;
   * every 202 is.
   */
  async function runBatch(apiKey: string, webhookUrl: string, crash: Crash, delivered: () => number) {
    const accepted: string[] = [];
    let crashed: Promise<void> | undefined;
    let next = 0;
    const worker = async () => {
      while (next < JOBS) {
        const i = next++;
        try {
          // Round robin over the gateway replicas: sync and async requests work on any of them.
          const gateway = cluster.gatewayUrls[i % cluster.gatewayUrls.length]!;
          const res = await generate(gateway, apiKey, {
            title: `Crash ${crash.service} ${i}`,
            format: 'x',
            webhookUrl,
          });
          if (res.status === 202) accepted.push(res.body.jobId);
        } catch {
          // The gateway was down: the connection was refused or cut, and no job was accepted.
        }
        if (!crashed && crash.when(accepted.length, delivered())) {
          crashed = (async () => {
            await cluster.kill(crash.service, 'SIGKILL');
            await cluster.restart(crash.service);
          })();
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(crashed, `${crash.service} was never killed`).toBeDefined();
    await crashed;
    return accepted;
  }

  async function checkOutcome(
    account: { accountId: string; apiKey: string },
    accepted: string[],
    deliveries: Delivery[],
  ) {
    const a = admin(cluster.gatewayUrl);
    const job = (id: string) =>
      request(`${cluster.gatewayUrl}/v1/jobs/${id}`, { headers: { 'x-api-key': account.apiKey } });

    // Every accepted job reaches a terminal state and has its webhook delivered.
    const finished = (b: JobBody | undefined) =>
      ['completed', 'failed'].includes(b?.status ?? '') && b?.webhook?.status === 'delivered';
    let last: JobBody[] = [];
    const states = await eventually(
      async () => {
        last = await Promise.all(accepted.map(async (id) => (await job(id)).body as JobBody));
        return last.every(finished) && last;
      },
      400_000,
      500,
    ).catch((error: Error) => {
      // Which jobs stopped where is what explains a stall.
      const unfinished = last.flatMap((b, i) =>
        finished(b) ? [] : [{ jobId: accepted[i], status: b?.status, webhook: b?.webhook }],
      );
      throw new Error(
        `${error.message}: ${unfinished.length} unfinished, ${JSON.stringify(unfinished.slice(0, 10))}`,
      );
    });
    expect(states).toHaveLength(accepted.length);

    // At least one delivery per job, every attempt with the same body, matching the job's state.
    for (const [i, id] of accepted.entries()) {
      const bodies = deliveries.filter((d) => d.jobId === id).map((d) => d.body);
      expect(bodies.length, `deliveries of ${id}`).toBeGreaterThanOrEqual(1);
      expect(new Set(bodies).size, `distinct bodies of ${id}`).toBe(1);
      const event = JSON.parse(bodies[0]!).event;
      expect(event).toBe(states[i].status === 'completed' ? 'generation.completed' : 'generation.failed');
    }

    // Exactly one capture or release per reservation, including jobs whose 202 never reached us.
    await eventually(
      async () => (await a.account(account.accountId)).body.credits.reserved === 0,
      60_000,
      250,
    );
    const ledger = (await a.ledger(account.accountId)).body as Array<{ kind: string; jobId?: string }>;
    const reserved = ledger.filter((e) => e.kind === 'reserved').map((e) => e.jobId);
    expect(new Set(reserved).size).toBe(reserved.length);
    for (const id of accepted) expect(reserved).toContain(id);
    for (const id of reserved) {
      const settled = ledger.filter(
        (e) => e.jobId === id && (e.kind === 'captured' || e.kind === 'released'),
      );
      expect(settled.length, `captures and releases of ${id}`).toBe(1);
    }
    const settledWithoutReservation = ledger.filter(
      (e) => (e.kind === 'captured' || e.kind === 'released') && !reserved.includes(e.jobId),
    );
    expect(settledWithoutReservation).toEqual([]);
  }

  const crashes: Array<[string, Crash]> = [
    [
      'rendering, mid-render, then restarted',
      { service: 'rendering', when: (accepted) => accepted >= 60, receiverDelayMs: 0 },
    ],
    [
      'billing, mid-reservation, then restarted',
      { service: 'billing', when: (accepted) => accepted >= 50, receiverDelayMs: 0 },
    ],
    [
      'webhook-delivery, mid-attempt, then restarted',
      {
        service: 'webhook-delivery',
        when: (_accepted, delivered) => delivered >= 40,
        receiverDelayMs: 150,
      },
    ],
    [
      'the gateway, right after a 202, then restarted',
      { service: 'gateway', when: (accepted) => accepted >= 40, receiverDelayMs: 0 },
    ],
  ];

  it.each(crashes)(
    `${JOBS} async jobs survive killing %s`,
    async (_name, crash) => {
      const recorder = await startRecorder(crash.receiverDelayMs);
      try {
        const account = await admin(cluster.gatewayUrl).createAccount('pro');
        const accepted = await runBatch(
          account.apiKey,
          recorder.url,
          crash,
          () => recorder.deliveries.length,
        );
        expect(accepted.length).toBeGreaterThan(0);
        await checkOutcome(account, accepted, recorder.deliveries);
      } finally {
        await recorder.close();
      }
    },
    // Generous: two cores run three servers and nine processes here.
    900_000,
  );

  it('afterwards, the ledgers and job states rebuilt from Kafka equal the MongoDB read model', async () => {
    const rebuild = await request(`${cluster.gatewayUrl}/admin/v1/rebuild`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(rebuild.status).toBe(200);
    const report = String(rebuild.body)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .at(-1).report;
    expect(report.accounts.mismatched).toEqual([]);
    expect(report.accounts.equal).toBe(true);
    expect(report.accounts.count).toBeGreaterThanOrEqual(4);
    expect(report.jobs.mismatched).toEqual([]);
    expect(report.jobs.equal).toBe(true);
  });
});
