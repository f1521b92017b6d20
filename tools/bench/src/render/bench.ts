import type { JobSpec, OutputFormat } from '@thumbforge/contracts';
import { dimensionsOf } from '@thumbforge/contracts';
import { ENCODER_SETTINGS } from '@thumbforge/imaging';
import { Renderer } from '@thumbforge/design-engine';
import sharp from 'sharp';
import type { CardContent } from './card.js';
import {
  chromiumRenderers,
  decode,
  encode,
  encodeDefaultWebp,
  satoriRenderer,
  type ChromiumRenderers,
} from './contenders.js';
import { benchJob, benchLogo, benchPhoto, TITLES } from './fixtures.js';
import { runScriptRows, type ScriptRow } from './scripts.js';

export { TITLES };

export type ContenderId =
  'floor' | 'engine' | 'satori' | 'chromium-warm' | 'chromium-launch' | 'default-webp';

export const CONTENDER_LABELS: Record<ContenderId, string> = {
  floor: '(a) floor: encode the ready RGBA pixels',
  engine: 'engine: the designed thumbnail',
  satori: '(b) satori + resvg card, same encode',
  'chromium-warm': '(c) chromium warm page, same encode',
  'chromium-launch': '(c) chromium launched per render, same encode',
  'default-webp': "sharp's default webp (q80, effort 4) alone",
};

export interface Measurement {
  id: ContenderId;
  label: string;
  /** null when the contender was not run (see `skipped`). */
  medianMs: number | null;
  /** Output size for the first title. */
  bytes: number | null;
  samples: number;
  skipped?: string;
}

export interface TargetCheck {
  label: string;
  measured: string;
  /** null when a contender it needs was not run. */
  pass: boolean | null;
}

export interface CaseReport {
  id: string;
  label: string;
  width: number;
  height: number;
  outputFormat: OutputFormat;
  measurements: Measurement[];
  targets: TargetCheck[];
}

export interface BenchOptions {
  iterations: number;
  warmup: number;
  /** Renders measured for the launch-per-render contender (each costs a browser start). */
  launchIterations: number;
  /** null: leave the Chromium contenders out, with this reason. */
  chromiumPath: string | null;
  chromiumSkipReason?: string;
  /** Called before each case, for progress on a terminal. */
  progress?: (message: string) => void;
}

export interface BenchReport {
  iterations: number;
  warmup: number;
  launchIterations: number;
  encoder: string;
  cases: CaseReport[];
  /** The engine on titles in other scripts against Latin ones. */
  scripts: ScriptRow[];
}

interface BenchCase {
  id: string;
  label: string;
  job: JobSpec;
  photo: boolean;
  logo: boolean;
  /** Issue target for the engine against the encode floor. */
  maxOverFloor: number;
  /** The youtube sd targets against sharp's default WebP encode. */
  againstDefaultEncode: boolean;
}

const LOGO = { key: 'bench/logo.png', position: 'top-right', size: 0.14, dropShadow: true } as const;

export const CASES: readonly BenchCase[] = [
  {
    id: 'youtube-title',
    label: 'youtube sd webp, title only',
    job: benchJob({}),
    photo: false,
    logo: false,
    maxOverFloor: 1.3,
    againstDefaultEncode: true,
  },
  {
    id: 'youtube-photo-logo',
    label: 'youtube sd webp, photo and logo',
    job: benchJob({ usePhoto: true, useLogo: true, photoKey: 'bench/photo.jpg', logo: LOGO }),
    photo: true,
    logo: true,
    maxOverFloor: 1.5,
    againstDefaultEncode: true,
  },
  {
    id: 'instagram-hd',
    label: 'instagram hd png, title only',
    job: benchJob({ format: 'instagram', model: 'hd', outputFormat: 'png' }),
    photo: false,
    logo: false,
    maxOverFloor: 1.3,
    againstDefaultEncode: false,
  },
];

/** Targets from the issue, beside what was measured. */
const FASTER_THAN_SATORI = 1.5;
const FASTER_THAN_WARM_CHROMIUM = 2;
const MAX_BYTES_OVER_DEFAULT = 1.1;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function timed(run: () => Promise<Buffer>): Promise<{ ms: number; bytes: number }> {
  const start = performance.now();
  const out = await run();
  return { ms: performance.now() - start, bytes: out.length };
}

function dataUrl(image: Buffer, type: string): string {
  return `data:${type};base64,${image.toString('base64')}`;
}

async function card(benchCase: BenchCase, photo: Buffer, logo: Buffer): Promise<CardContent> {
  const canvas = dimensionsOf(benchCase.job.format, benchCase.job.model);
  const content: CardContent = { canvas, title: benchCase.job.title };
  if (benchCase.photo) content.photo = dataUrl(photo, 'image/jpeg');
  if (benchCase.logo) {
    const meta = await sharp(logo).metadata();
    const width = Math.round(canvas.width * LOGO.size);
    content.logo = {
      src: dataUrl(logo, 'image/png'),
      width,
      height: Math.round((width * meta.height) / meta.width),
    };
  }
  return content;
}

/**
 * Runs every case: the contenders take turns within each round (so drift on a shared machine hits
 * them alike), the first `warmup` rounds are not counted, and the median of the rest is reported.
 */
export async function runRenderBench(options: BenchOptions): Promise<BenchReport> {
  const renderer = new Renderer();
  const [photo, logo] = await Promise.all([benchPhoto(), benchLogo()]);
  const drawSatori = await satoriRenderer();
  let browser: ChromiumRenderers | null = null;
  let chromiumSkipReason = options.chromiumSkipReason ?? 'not run';
  try {
    if (options.chromiumPath) {
      // A browser that cannot start leaves its rows empty; the other contenders still run.
      browser = await chromiumRenderers(options.chromiumPath).catch((error: unknown) => {
        chromiumSkipReason = 'chromium did not start';
        options.progress?.(
          `${options.chromiumPath} did not start: ${(error as Error).message.split('\n')[0]}`,
        );
        return null;
      });
    }
    const cases: CaseReport[] = [];
    for (const benchCase of CASES) {
      options.progress?.(`${benchCase.label} ...`);
      cases.push(
        await runCase(benchCase, { renderer, photo, logo, drawSatori, browser, chromiumSkipReason, options }),
      );
    }
    options.progress?.('titles by script ...');
    const scripts = await runScriptRows(renderer, options);
    return {
      iterations: options.iterations,
      warmup: options.warmup,
      launchIterations: options.launchIterations,
      encoder: `webp quality ${ENCODER_SETTINGS.webp.quality} effort ${ENCODER_SETTINGS.webp.effort}; png level ${ENCODER_SETTINGS.png.compressionLevel}, adaptive filtering`,
      cases,
      scripts,
    };
  } finally {
    await browser?.close();
  }
}

interface CaseContext {
  renderer: Renderer;
  photo: Buffer;
  logo: Buffer;
  drawSatori: (card: CardContent, format: OutputFormat) => Promise<Buffer>;
  browser: ChromiumRenderers | null;
  chromiumSkipReason: string;
  options: BenchOptions;
}

async function runCase(benchCase: BenchCase, ctx: CaseContext): Promise<CaseReport> {
  const { job } = benchCase;
  const { options } = ctx;
  const format = job.outputFormat;
  const inputs = {
    ...(benchCase.photo ? { photo: ctx.photo } : {}),
    ...(benchCase.logo ? { logo: ctx.logo } : {}),
  };
  const content = await card(benchCase, ctx.photo, ctx.logo);
  const jobs = TITLES.map((title) => ({ ...job, title }));
  const cards = TITLES.map((title) => ({ ...content, title }));
  // The floor and the reference encode work on exactly the pixels the engine produced.
  const rendered = await ctx.renderer.render(jobs[0]!, inputs);
  const pixels = await decode(rendered.image);

  const runs: Array<[ContenderId, (round: number) => Promise<Buffer>]> = [
    ['floor', () => encode(pixels, format)],
    ['engine', async (round) => (await ctx.renderer.render(jobs[round % jobs.length]!, inputs)).image],
    ['satori', (round) => ctx.drawSatori(cards[round % cards.length]!, format)],
  ];
  const browser = ctx.browser;
  if (browser) runs.push(['chromium-warm', (round) => browser.warm(cards[round % cards.length]!, format)]);
  if (format === 'webp') runs.push(['default-webp', () => encodeDefaultWebp(pixels)]);

  const samples = new Map<ContenderId, { ms: number[]; bytes: number }>();
  const rounds = options.warmup + options.iterations;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < runs.length; i++) {
      // Rotating the order keeps any contender from always following the same one.
      const [id, run] = runs[(i + round) % runs.length]!;
      const { ms, bytes } = await timed(() => run(round));
      const entry = samples.get(id) ?? { ms: [], bytes };
      // Bytes are compared on the first title, which every contender draws in round 0.
      if (round % TITLES.length === 0) entry.bytes = bytes;
      if (round >= options.warmup) entry.ms.push(ms);
      samples.set(id, entry);
    }
  }
  if (browser && options.launchIterations > 0) {
    const entry = { ms: [] as number[], bytes: (await browser.perLaunch(cards[0]!, format)).length };
    for (let i = 0; i < options.launchIterations; i++) {
      const { ms } = await timed(() => browser.perLaunch(cards[(i + 1) % cards.length]!, format));
      entry.ms.push(ms);
    }
    samples.set('chromium-launch', entry);
  }

  const order: ContenderId[] = ['floor', 'engine', 'satori', 'chromium-warm', 'chromium-launch'];
  if (format === 'webp') order.push('default-webp');
  const measurements = order.map((id): Measurement => {
    const entry = samples.get(id);
    if (entry && entry.ms.length > 0)
      return {
        id,
        label: CONTENDER_LABELS[id],
        medianMs: median(entry.ms),
        bytes: entry.bytes,
        samples: entry.ms.length,
      };
    return {
      id,
      label: CONTENDER_LABELS[id],
      medianMs: null,
      bytes: null,
      samples: 0,
      skipped: ctx.chromiumSkipReason,
    };
  });
  const { width, height } = dimensionsOf(job.format, job.model);
  return {
    id: benchCase.id,
    label: benchCase.label,
    width,
    height,
    outputFormat: format,
    measurements,
    targets: targets(benchCase, measurements),
  };
}

function targets(benchCase: BenchCase, measurements: Measurement[]): TargetCheck[] {
  const get = (id: ContenderId) => measurements.find((m) => m.id === id)!;
  const engine = get('engine');
  const ratio = (a: number | null, b: number | null) => (a !== null && b !== null && b > 0 ? a / b : null);
  const check = (
    label: string,
    value: number | null,
    ok: (v: number) => boolean,
    unit = 'x',
  ): TargetCheck => ({
    label,
    measured: value === null ? 'n/a' : `${value.toFixed(2)}${unit}`,
    pass: value === null ? null : ok(value),
  });

  const checks = [
    check(
      `engine at most ${benchCase.maxOverFloor}x the floor`,
      ratio(engine.medianMs, get('floor').medianMs),
      (v) => v <= benchCase.maxOverFloor,
    ),
    check(
      `engine at least ${FASTER_THAN_SATORI}x faster than (b) satori + resvg`,
      ratio(get('satori').medianMs, engine.medianMs),
      (v) => v >= FASTER_THAN_SATORI,
    ),
    check(
      `engine at least ${FASTER_THAN_WARM_CHROMIUM}x faster than (c) warm chromium`,
      ratio(get('chromium-warm').medianMs, engine.medianMs),
      (v) => v >= FASTER_THAN_WARM_CHROMIUM,
    ),
  ];
  if (benchCase.againstDefaultEncode) {
    const reference = get('default-webp');
    checks.push(
      check(
        "engine time at most sharp's default webp encode alone",
        ratio(engine.medianMs, reference.medianMs),
        (v) => v <= 1,
      ),
      check(
        `engine bytes at most ${MAX_BYTES_OVER_DEFAULT}x the default encode's`,
        ratio(engine.bytes, reference.bytes),
        (v) => v <= MAX_BYTES_OVER_DEFAULT,
      ),
    );
  }
  return checks;
}
