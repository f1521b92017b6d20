import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';

/** The CSV columns `thumbforge generate` reads: the request fields, and the output file name. */
const COLUMNS = [
  'title',
  'format',
  'category',
  'model',
  'outputFormat',
  'usePhoto',
  'useLogo',
  'customAssetsId',
  'filename',
] as const;
const BOOLEAN_COLUMNS = new Set(['usePhoto', 'useLogo']);

export interface CsvJob {
  /** 1-based data row (the header is row 0). */
  row: number;
  title: string;
  request: Record<string, string | boolean>;
  file: string;
  /** Derived from the row, so a rerun of the same file replays instead of charging again. */
  idempotencyKey: string;
}

export class CsvError extends Error {}

function slug(title: string): string {
  const base = title
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '-')
    .slice(0, 60);
  return base || 'thumbnail';
}

/** Reads the CSV into one request per row; refuses unknown columns and rows without a title up front. */
export function planCsvJobs(
  csv: string,
  outDir: string,
  defaults: { format?: string; outputFormat?: string } = {},
): CsvJob[] {
  let rows: Record<string, string>[];
  try {
    rows = parse(csv, { columns: true, skip_empty_lines: true, trim: true, bom: true });
  } catch (error) {
    throw new CsvError(`the CSV cannot be read: ${(error as Error).message}`);
  }
  if (rows.length === 0)
    throw new CsvError('the CSV has no rows (a header line with a title column comes first)');
  const unknown = Object.keys(rows[0]!).filter((column) => !(COLUMNS as readonly string[]).includes(column));
  if (unknown.length > 0) {
    throw new CsvError(`unknown column(s) ${unknown.join(', ')}; known: ${COLUMNS.join(', ')}`);
  }
  return rows.map((values, index) => {
    const row = index + 1;
    if (!values.title) throw new CsvError(`row ${row} has no title`);
    const request: Record<string, string | boolean> = {};
    for (const column of COLUMNS) {
      const value = values[column];
      if (column === 'filename' || value === undefined || value === '') continue;
      request[column] = BOOLEAN_COLUMNS.has(column) ? value.toLowerCase() === 'true' : value;
    }
    if (defaults.format && !request.format && !request.customAssetsId) request.format = defaults.format;
    if (defaults.outputFormat && !request.outputFormat) request.outputFormat = defaults.outputFormat;
    const ext = request.outputFormat === 'png' ? 'png' : 'webp';
    const name = values.filename || `${String(row).padStart(4, '0')}-${slug(values.title)}`;
    const digest = createHash('sha256').update(JSON.stringify({ row, request })).digest('hex');
    return {
      row,
      title: values.title,
      request,
      file: join(outDir, name.endsWith(`.${ext}`) ? name : `${name}.${ext}`),
      idempotencyKey: `csv-${digest.slice(0, 48)}`,
    };
  });
}

export interface CsvRunSummary {
  total: number;
  generated: number;
  /** Answered from an earlier run's idempotency key: not charged again. */
  replayed: number;
  /** The output file was already there. */
  skipped: number;
  failed: Array<{ row: number; title: string; error: string }>;
  creditsRemaining: string | null;
}

export interface CsvRunOptions {
  url: string;
  apiKey: string;
  concurrency: number;
  onProgress(done: number, failed: number): void;
  maxAttempts?: number;
  sleep?: (ms: number) => Promise<void>;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs the jobs `concurrency` at a time; an existing output file means the row is done. */
export async function runCsvJobs(jobs: CsvJob[], options: CsvRunOptions): Promise<CsvRunSummary> {
  const summary: CsvRunSummary = {
    total: jobs.length,
    generated: 0,
    replayed: 0,
    skipped: 0,
    failed: [],
    creditsRemaining: null,
  };
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      try {
        if (existsSync(job.file)) summary.skipped++;
        else {
          const { image, replayed, remaining } = await generateOne(job, options);
          await mkdir(join(job.file, '..'), { recursive: true });
          // Written whole or not at all: a file that exists is a finished row on resume.
          await writeFile(`${job.file}.partial`, image);
          await rename(`${job.file}.partial`, job.file);
          if (replayed) summary.replayed++;
          else summary.generated++;
          if (remaining !== null) summary.creditsRemaining = remaining;
        }
      } catch (error) {
        summary.failed.push({ row: job.row, title: job.title, error: (error as Error).message });
      }
      options.onProgress(++done, summary.failed.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  summary.failed.sort((a, b) => a.row - b.row);
  return summary;
}

/** One request, retried on 429, 5xx and network failures with the row's idempotency key. */
async function generateOne(job: CsvJob, options: CsvRunOptions) {
  const sleep = options.sleep ?? wait;
  const maxAttempts = options.maxAttempts ?? 6;
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${options.url.replace(/\/+$/, '')}/v1/generate`, {
        method: 'POST',
        headers: {
          'x-api-key': options.apiKey,
          'content-type': 'application/json',
          'idempotency-key': job.idempotencyKey,
        },
        body: JSON.stringify(job.request),
      });
    } catch (error) {
      if (attempt >= maxAttempts) {
        throw new Error(`cannot reach the service: ${(error as Error).message}`, { cause: error });
      }
      await sleep(500 * 2 ** attempt);
      continue;
    }
    const body = (await res.json().catch(() => ({}))) as { image?: string; error?: string };
    if (res.ok && body.image) {
      return {
        image: Buffer.from(body.image.slice(body.image.indexOf(',') + 1), 'base64'),
        replayed: res.headers.get('idempotent-replayed') === 'true',
        remaining: res.headers.get('x-ratelimit-remaining'),
      };
    }
    const retryAfter = Number(res.headers.get('retry-after'));
    const delay = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 500 * 2 ** attempt;
    if ((res.status === 429 || res.status >= 500) && attempt < maxAttempts && delay <= 60_000) {
      await sleep(delay);
      continue;
    }
    throw new Error(`${res.status} ${body.error ?? res.statusText}`);
  }
}
