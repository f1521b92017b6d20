#!/usr/bin/env node
import { Command, Option } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PLANS } from '@thumbforge/contracts';
import { CsvError, planCsvJobs, runCsvJobs } from './generate-csv.js';

/**
 * The admin API from a shell (DESIGN §6): the same operations, plus `rebuild` with a progress bar,
 * and `generate`, which makes thumbnails for the rows of a CSV with an account's API key.
 */
const program = new Command('thumbforge')
  .description('Administer a running Thumbforge service, or generate thumbnails from a CSV')
  .option(
    '--url <url>',
    'service base URL',
    process.env.THUMBFORGE_URL ?? `http://localhost:${process.env.PORT ?? 3000}`,
  )
  .option('--token <token>', 'admin token (default: $ADMIN_TOKEN)', process.env.ADMIN_TOKEN);

async function call(method: string, path: string, body?: unknown): Promise<Response> {
  const { url, token } = program.opts<{ url: string; token?: string }>();
  if (!token) fail('an admin token is required: pass --token or set ADMIN_TOKEN');
  let res: Response;
  try {
    res = await fetch(`${url.replace(/\/+$/, '')}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    fail(`cannot reach ${url}: ${(error as Error).message}`);
  }
  if (!res.ok) {
    const text = await res.text();
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {
      // not JSON: print as is
    }
    fail(`${res.status}: ${message}`);
  }
  return res;
}

function fail(message: string): never {
  process.stderr.write(`thumbforge: ${message}\n`);
  process.exit(1);
}

const print = async (res: Response) => {
  if (res.status !== 204) process.stdout.write(`${JSON.stringify(await res.json(), null, 2)}\n`);
};

const accounts = program.command('accounts').description('accounts and plans');
accounts
  .command('create')
  .addOption(new Option('--plan <plan>', 'plan').choices(PLANS).makeOptionMandatory())
  .option('--no-api-access', 'create without API access')
  .action(async (opts: { plan: string; apiAccess: boolean }) =>
    print(await call('POST', '/admin/v1/accounts', { plan: opts.plan, apiAccess: opts.apiAccess })),
  );
accounts
  .command('get <accountId>')
  .action(async (id: string) => print(await call('GET', `/admin/v1/accounts/${id}`)));
accounts
  .command('update <accountId>')
  .addOption(new Option('--plan <plan>', 'new plan').choices(PLANS))
  .addOption(new Option('--api-access <onOff>', 'enable or disable API access').choices(['on', 'off']))
  .action(async (id: string, opts: { plan?: string; apiAccess?: 'on' | 'off' }) =>
    print(
      await call('PATCH', `/admin/v1/accounts/${id}`, {
        ...(opts.plan ? { plan: opts.plan } : {}),
        ...(opts.apiAccess ? { apiAccess: opts.apiAccess === 'on' } : {}),
      }),
    ),
  );
program
  .command('rotate-key <accountId>')
  .description('issue a new API key; the old one stops working at once')
  .action(async (id: string) => print(await call('POST', `/admin/v1/accounts/${id}/api-keys`)));
program
  .command('webhook-secret <accountId>')
  .description('issue a new Standard Webhooks secret (whsec_…); earlier ones keep signing for the overlap')
  .option('--overlap <seconds>', 'how long earlier secrets keep signing', '86400')
  .action(async (id: string, opts: { overlap: string }) => {
    const overlapSeconds = Number(opts.overlap);
    if (!Number.isInteger(overlapSeconds)) fail('--overlap must be a whole number of seconds');
    print(await call('POST', `/admin/v1/accounts/${id}/webhook-secrets`, { overlapSeconds }));
  });
program
  .command('url-secret <accountId>')
  .description('issue the secret of signed image URLs; URLs signed with the previous one stop working')
  .action(async (id: string) => print(await call('POST', `/admin/v1/accounts/${id}/url-signing-secrets`)));
program
  .command('ledger <accountId>')
  .description("the account's credit ledger, newest first")
  .action(async (id: string) => print(await call('GET', `/admin/v1/accounts/${id}/ledger`)));
program
  .command('generate')
  .description(
    'one thumbnail per CSV row (columns: title, and optionally format, category, model, outputFormat, usePhoto, useLogo, customAssetsId, filename); rerun to resume',
  )
  .requiredOption('--csv <file>', 'the CSV, with a header line')
  .requiredOption('--out <dir>', 'where the images go')
  .option(
    '--api-key <key>',
    'API key of the account (default: $THUMBFORGE_API_KEY)',
    process.env.THUMBFORGE_API_KEY,
  )
  .option('--concurrency <n>', 'requests at a time', '4')
  .option('--format <format>', 'format of rows that name none')
  .option('--output-format <webp|png>', 'output format of rows that name none')
  .action(
    async (opts: {
      csv: string;
      out: string;
      apiKey?: string;
      concurrency: string;
      format?: string;
      outputFormat?: string;
    }) => {
      if (!opts.apiKey) fail('an API key is required: pass --api-key or set THUMBFORGE_API_KEY');
      const concurrency = Number(opts.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1)
        fail('--concurrency must be a positive whole number');
      let jobs;
      try {
        jobs = planCsvJobs(readFileSync(opts.csv, 'utf8'), resolve(opts.out), {
          format: opts.format,
          outputFormat: opts.outputFormat,
        });
      } catch (error) {
        fail(
          error instanceof CsvError ? error.message : `cannot read ${opts.csv}: ${(error as Error).message}`,
        );
      }
      const bar = new SingleBar(
        {
          format: 'generating {bar} {value}/{total} | {failed} failed',
          hideCursor: true,
          stream: process.stderr,
          // Logs of scripted runs get a line a second instead of nothing.
          noTTYOutput: true,
          notTTYSchedule: 1000,
        },
        Presets.shades_classic,
      );
      bar.start(jobs.length, 0, { failed: 0 });
      const summary = await runCsvJobs(jobs, {
        url: program.opts<{ url: string }>().url,
        apiKey: opts.apiKey,
        concurrency,
        onProgress: (done, failed) => bar.update(done, { failed }),
      });
      bar.stop();
      process.stdout.write(
        `${summary.total} rows: ${summary.generated} generated, ${summary.replayed} replayed without a new charge, ` +
          `${summary.skipped} already in ${opts.out}, ${summary.failed.length} failed` +
          `${summary.creditsRemaining === null ? '' : `; ${summary.creditsRemaining} credits left`}\n`,
      );
      for (const failure of summary.failed) {
        process.stdout.write(`  row ${failure.row} (${failure.title}): ${failure.error}\n`);
      }
      if (summary.failed.length > 0) process.exit(1);
    },
  );
program
  .command('rebuild')
  .description('replay the event log into fresh projections and compare them with the live ones')
  .action(async () => {
    const res = await call('POST', '/admin/v1/rebuild');
    const bar = new SingleBar(
      { format: 'replaying {bar} {value}/{total} events', hideCursor: true },
      Presets.shades_classic,
    );
    let started = false;
    let buffered = '';
    let report:
      | {
          events: number;
          accounts: { count: number; equal: boolean };
          jobs: { count: number; equal: boolean };
        }
      | undefined;
    for await (const chunk of res.body!) {
      buffered += Buffer.from(chunk).toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffered.slice(0, newline)) as {
          done?: number;
          total?: number;
          report?: typeof report;
        };
        buffered = buffered.slice(newline + 1);
        if (line.report) report = line.report;
        else if (line.total !== undefined) {
          if (!started) bar.start(line.total, 0);
          started = true;
          bar.update(line.done ?? 0);
        }
      }
    }
    if (started) bar.stop();
    if (!report) fail('the service ended the rebuild without a report');
    process.stdout.write(
      `replayed ${report.events} events: ledger of ${report.accounts.count} accounts ${report.accounts.equal ? 'equals' : 'DIFFERS FROM'} the live one; ` +
        `${report.jobs.count} jobs ${report.jobs.equal ? 'equal' : 'DIFFER FROM'} the live ones\n`,
    );
    if (!report.accounts.equal || !report.jobs.equal) process.exit(2);
  });

await program.parseAsync(process.argv);
