import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import type { OutputFormat } from '@thumbforge/contracts';
import { DISPLAY_FONT, withEncoder } from '@thumbforge/imaging';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import satori from 'satori';
import sharp from 'sharp';
import { cardElement, cardHtml, type CardContent } from './card.js';

/** Raw pixels ready in memory, as any drawing engine hands them to the encoder. */
export interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

/**
 * Every contender ends the same way: an opaque image, alpha dropped, through the service's encoder
 * settings. Only the drawing before it differs.
 */
export function encode(pixels: Pixels, outputFormat: OutputFormat): Promise<Buffer> {
  const { data, width, height, channels } = pixels;
  return withEncoder(
    sharp(data, { raw: { width, height, channels } }).removeAlpha(),
    outputFormat,
  ).toBuffer();
}

/** sharp's default WebP settings (quality 80, effort 4): the reference most services ship with. */
export function encodeDefaultWebp(pixels: Pixels): Promise<Buffer> {
  const { data, width, height, channels } = pixels;
  return sharp(data, { raw: { width, height, channels } }).removeAlpha().webp().toBuffer();
}

export async function decode(image: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 4 };
}

async function fontData(): Promise<Buffer> {
  return readFile(DISPLAY_FONT.file);
}

/** satori lays the card out to SVG, resvg rasterises it to RGBA, then the same encode. */
export async function satoriRenderer(): Promise<
  (card: CardContent, format: OutputFormat) => Promise<Buffer>
> {
  const font = await fontData();
  return async (card, format) => {
    const { width, height } = card.canvas;
    const svg = await satori(cardElement(card) as never, {
      width,
      height,
      fonts: [{ name: 'Display', data: font, weight: 400, style: 'normal' }],
    });
    const rendered = new Resvg(svg, { fitTo: { mode: 'original' } }).render();
    return encode(
      { data: rendered.pixels, width: rendered.width, height: rendered.height, channels: 4 },
      format,
    );
  };
}

export const CHROMIUM = '/usr/bin/chromium';

export interface ChromiumChoice {
  path: string | null;
  /** Why the Chromium rows are empty. */
  skipReason?: string;
  /** What to tell the person running the bench. */
  warning?: string;
}

/** Debian's Chromium when it is installed; otherwise the rows are skipped and the fix is named. */
export function chooseChromium(disabled: boolean, exists: (path: string) => boolean): ChromiumChoice {
  if (disabled) return { path: null, skipReason: '--no-chromium' };
  if (exists(CHROMIUM)) return { path: CHROMIUM };
  return {
    path: null,
    skipReason: `no ${CHROMIUM}`,
    warning:
      `Chromium is not installed at ${CHROMIUM}, so the (c) rows are skipped. ` +
      'Install it with: apt-get update && apt-get install -y chromium',
  };
}

/** Flags of a quiet, reproducible headless browser: no GPU, no background traffic, no first-run work. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const LAUNCH_TIMEOUT_MS = 30_000;

/** A browser with a fresh profile directory; closing it removes the profile. */
async function launch(executablePath: string): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'bench-chromium-'));
  const context = await chromium
    .launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: LAUNCH_TIMEOUT_MS,
    })
    .catch(async (error: unknown) => {
      await rm(profile, { recursive: true, force: true });
      throw error;
    });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

async function screenshot(page: Page, card: CardContent, fontUrl: string): Promise<Buffer> {
  const { width, height } = card.canvas;
  await page.setViewportSize({ width, height });
  await page.setContent(cardHtml(card, fontUrl), { waitUntil: 'load' });
  // A string, evaluated in the page: this package is typed for Node, without the DOM.
  await page.evaluate('document.fonts.ready.then(() => true)');
  return page.screenshot({ type: 'png', clip: { x: 0, y: 0, width, height } });
}

export interface ChromiumRenderers {
  /** One browser and page kept warm across renders, the way a tuned service runs it. */
  warm(card: CardContent, format: OutputFormat): Promise<Buffer>;
  /** A browser launched for each render and closed after it, the way simple services run it. */
  perLaunch(card: CardContent, format: OutputFormat): Promise<Buffer>;
  close(): Promise<void>;
}

export async function chromiumRenderers(executablePath: string): Promise<ChromiumRenderers> {
  const fontUrl = `data:font/ttf;base64,${(await fontData()).toString('base64')}`;
  const browser = await launch(executablePath);
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  const finish = async (png: Buffer, format: OutputFormat) => encode(await decode(png), format);
  return {
    warm: async (card, format) => finish(await screenshot(page, card, fontUrl), format),
    perLaunch: async (card, format) => {
      const once = await launch(executablePath);
      try {
        const fresh = once.context.pages()[0] ?? (await once.context.newPage());
        return await finish(await screenshot(fresh, card, fontUrl), format);
      } finally {
        await once.close();
      }
    },
    close: () => browser.close(),
  };
}
