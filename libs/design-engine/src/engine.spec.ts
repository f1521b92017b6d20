import { CATEGORIES, dimensionsOf, type Category } from '@thumbforge/contracts';
import { deflateRawSync } from 'node:zlib';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { jobSpec, logoImage, photoImage, solidImage } from '../testing/index.js';
import { changedBounds, decode, meanDifference, pixelAt, renderedContrast } from '../test/pixels.js';
import { durationBadgeZone, intersects, saturation, type Rgb } from './layout/index.js';
import { Renderer } from './engine.js';
import { packsSettled, renders } from './paint/backgrounds.js';
import { DEFAULT_PIXEL_CACHE_BYTES, limitPixelCaches, pixelCaches } from './paint/caches.js';
import { canvasBuffers, limitCanvasBuffers } from './paint/canvas.js';

const renderer = new Renderer();
let photo: Buffer;
let logo: Buffer;

beforeAll(async () => {
  [photo, logo] = await Promise.all([photoImage(), logoImage()]);
});

const green = (p: Rgb) => p.g > 150 && Math.max(p.r, p.b) < 110;

describe('Renderer: the title', () => {
  it.each(CATEGORIES)(
    '%s: the title reads at 4.5:1 or more, measured on the rendered pixels',
    async (category) => {
      const job = jobSpec({
        category: category as Category,
        outputFormat: 'png',
        title: 'The 7 Habits Nobody Tells You About',
      });
      const composition = await renderer.compose(job, {}, { keepBackdrop: true });
      const rendered = await decode((await renderer.render(job, {})).image);
      expect(rendered.data.equals(composition.canvas.data)).toBe(true);
      const { worst, textPixels } = renderedContrast(composition, rendered);
      expect(textPixels).toBeGreaterThan(500);
      expect(worst).toBeGreaterThanOrEqual(4.5);
    },
  );

  it('keeps everything it draws inside the title box (plus its shadow) and off the duration badge', async () => {
    const job = jobSpec({ category: 'gaming', title: 'I Beat Minecraft Hardcore Without Dying Once' });
    const composition = await renderer.compose(job, {}, { keepBackdrop: true });
    const changed = changedBounds(composition.backdrop!, composition.canvas)!;
    const box = composition.design.template.titleBox;
    const room = composition.design.layout!.minSize * 0.2;
    expect(changed.x).toBeGreaterThanOrEqual(box.x - room);
    expect(changed.y).toBeGreaterThanOrEqual(box.y - room);
    expect(changed.x + changed.width).toBeLessThanOrEqual(box.x + box.width + room);
    expect(changed.y + changed.height).toBeLessThanOrEqual(box.y + box.height + room);
    expect(intersects(changed, durationBadgeZone(composition.canvas))).toBe(false);
  });

  it('sets titles big enough to read in a feed (capitals at least 6.5 % of the height)', async () => {
    for (const title of [
      'Big Title',
      'How I Made $10,000 in 30 Days With a Boring Business',
      'Learn Python Today',
    ]) {
      const { design } = await renderer.compose(jobSpec({ title }), {});
      expect(design.capHeight / design.canvas.height).toBeGreaterThanOrEqual(0.065);
    }
  });

  it('lays a right-to-left title out from the right: its first word furthest right', async () => {
    const { design } = await renderer.compose(
      jobSpec({ title: 'تعلم البرمجة في عشرة أيام', category: 'education-tutorial' }),
      {},
    );
    const firstLine = design.layout!.lines[0]!;
    const first = firstLine.pieces.find((p) => p.index === 0)!;
    expect(Math.max(...firstLine.pieces.map((p) => p.x))).toBe(first.x);
    expect(design.template.align).not.toBe('left');
  });

  it.each([
    ['Arabic', 'أفضل وصفة بيتزا في العالم'],
    ['Persian', 'سفر به ژاپن با بودجه کم'],
    ['Hebrew', 'המתכון הטוב ביותר לפיצה'],
    ['Devanagari', 'भारत की सबसे अच्छी यात्रा'],
    ['Thai', 'เที่ยวญี่ปุ่นด้วยงบน้อย'],
    ['Chinese', '我花了三十天学会做饭'],
    ['Japanese', '東京で一番おいしいラーメン'],
    ['Korean', '서울 최고의 맛집 여행'],
    ['Greek and Cyrillic', 'Καλημέρα Привет мир'],
    ['Vietnamese', 'Hướng dẫn nấu phở ngon nhất'],
  ])('%s: every character has a glyph in a bundled font', async (_script, title) => {
    const { design } = await renderer.compose(jobSpec({ title }), {});
    expect(design.layout).not.toBeNull();
    const shaper = (renderer as unknown as { shaper: import('./paint/shaper.js').Shaper }).shaper;
    for (const piece of design.layout!.pieces) {
      const font = piece.emphasis ? design.emphasisFont : design.font;
      const shaped = shaper.shape(piece.text, font, design.skew, design.context);
      expect(shaped.glyphs.filter((g) => g.glyph === 0)).toEqual([]);
    }
  });

  it('draws emoji in colour', async () => {
    const job = jobSpec({ title: 'Spicy 🌶️ Noodles', category: 'news-commentary', outputFormat: 'png' });
    const { canvas, design } = await renderer.compose(job, {});
    const piece = design.layout!.pieces.find((p) => p.text.includes('🌶'))!;
    let vivid = 0;
    for (let dy = -piece.size * 0.6; dy < 0; dy += 2) {
      for (let dx = 0; dx < piece.size * 0.8; dx += 2) {
        const p = pixelAt(canvas, piece.x + dx, piece.baseline + dy);
        if (saturation(p) > 0.6 && p.r > 150) vivid++;
      }
    }
    expect(vivid).toBeGreaterThan(20);
  });

  it('renders markup-like and control characters literally', async () => {
    const title = '<b>Tom & "Jerry"</b> <span foreground="red">\u0007it\'s</span>';
    const { design } = await renderer.compose(jobSpec({ title }), {});
    expect(design.layout!.pieces.map((p) => p.text).join(' ')).toContain('<B>TOM');
  });

  it('draws only the background for a title with no visible characters', async () => {
    const result = await renderer.render(jobSpec({ title: ' \t ' }), {});
    expect(result.width).toBe(1280);
  });
});

describe('Renderer: photo', () => {
  it('draws the photo as the subject on the far side of the title, faded into the scene', async () => {
    const job = jobSpec({ outputFormat: 'png' });
    const { canvas, design } = await renderer.compose(job, { photo });
    const slot = design.template.photo!.rect;
    expect(slot.x + slot.width).toBe(1280);
    for (const [x, y] of [
      [1180, 120],
      [1200, 650],
      [slot.x + slot.width * 0.7, 360],
    ] as const) {
      expect(green(pixelAt(canvas, x, y))).toBe(true);
    }
    // The inner edge is blended: background there, photo further in.
    expect(pixelAt(canvas, slot.x + 1, 360).g).toBeLessThan(
      pixelAt(canvas, slot.x + slot.width * 0.7, 360).g - 60,
    );
    expect(intersects(design.layout!.bounds, { ...slot, x: slot.x + slot.width * 0.1 })).toBe(false);
  });

  it('mirrors the scene for a right-to-left title: photo on the left', async () => {
    const { canvas } = await renderer.compose(jobSpec({ title: 'مرحبا بالعالم' }), { photo });
    expect(green(pixelAt(canvas, 100, 100))).toBe(true);
    expect(green(pixelAt(canvas, 1200, 100))).toBe(false);
  });

  it('puts the photo below the title on the square format', async () => {
    const { canvas } = await renderer.compose(jobSpec({ format: 'instagram' }), { photo });
    expect(green(pixelAt(canvas, 512, 980))).toBe(true);
    expect(green(pixelAt(canvas, 512, 60))).toBe(false);
  });
});

describe('Renderer: logo', () => {
  it.each(['top-left', 'top-right', 'bottom-left', 'bottom-right'] as const)(
    'draws the logo last at its %s corner, clear of the title',
    async (position) => {
      const job = jobSpec({ format: 'x', logo: { key: 'k', position, size: 0.2, dropShadow: true } });
      const { canvas, logo: rect, design } = await renderer.compose(job, { logo, photo });
      // 20 % of 1200 = 240 px wide, 120 px tall, 24 px from the edges.
      const cx = position.endsWith('left') ? 24 + 120 : 1200 - 24 - 120;
      const cy = position.startsWith('top') ? 24 + 60 : 675 - 24 - 60;
      expect(pixelAt(canvas, cx, cy)).toEqual({ r: 255, g: 0, b: 255 });
      expect(intersects(design.layout!.bounds, rect!)).toBe(false);
    },
  );

  it('gives an inline logo sensible defaults: a top corner on YouTube, clear of the badge', async () => {
    const { logo: rect } = await renderer.compose(jobSpec({ logo: null }), { logo });
    expect(rect!.y).toBeLessThan(100);
    expect(intersects(rect!, durationBadgeZone({ width: 1280, height: 720 }))).toBe(false);
  });

  it('casts the logo shadow only when asked', async () => {
    const placement = { key: 'k', position: 'top-left' as const, size: 0.2, dropShadow: true };
    const shadowed = (await renderer.compose(jobSpec({ logo: placement }), { logo })).canvas;
    const flat = (await renderer.compose(jobSpec({ logo: { ...placement, dropShadow: false } }), { logo }))
      .canvas;
    const below = [25 + 200, 25 + 128 + 4] as const;
    const sum = (p: Rgb) => p.r + p.g + p.b;
    expect(sum(pixelAt(shadowed, ...below))).toBeLessThan(sum(pixelAt(flat, ...below)));
  });
});

describe('Renderer: references', () => {
  it('takes its colours from the reference set', async () => {
    const job = jobSpec({ title: 'Same Title' });
    const red = (await renderer.compose(job, { references: [await solidImage('#c81e1e')] })).canvas;
    const blue = (await renderer.compose(job, { references: [await solidImage('#1e3cc8')] })).canvas;
    const p1 = pixelAt(red, 1200, 80);
    const p2 = pixelAt(blue, 1200, 80);
    expect(p1.r).toBeGreaterThan(p1.b + 80);
    expect(p2.b).toBeGreaterThan(p2.r + 80);
  });
});

describe('Renderer: determinism and variety', () => {
  it('renders the same job to the same bytes, with warm or cold caches', async () => {
    const job = jobSpec({ logo: { key: 'k', position: 'bottom-left', size: 0.15, dropShadow: true } });
    const inputs = { photo, logo, references: [await solidImage('#0f766e')] };
    const [first, second] = await Promise.all([renderer.render(job, inputs), renderer.render(job, inputs)]);
    const cold = await new Renderer().render(job, inputs);
    expect(first.image.equals(second.image)).toBe(true);
    expect(first.image.equals(cold.image)).toBe(true);
  });

  it('draws each render on clean pixels: a canvas buffer reused from another render leaves nothing of it', async () => {
    const job = jobSpec({ title: 'Same Title', outputFormat: 'png' });
    const alone = await new Renderer().render(job, {});
    // Another design of the same size renders first and gives its canvas buffer back.
    await renderer.render(jobSpec({ title: 'A Different Title Entirely', category: 'gaming' }), { photo });
    const after = await renderer.render(job, {});
    expect(after.image.equals(alone.image)).toBe(true);
  });

  it('gives different categories visibly different designs', async () => {
    const categories = CATEGORIES.filter((c) => c !== 'auto');
    const canvases = await Promise.all(
      categories.map(
        async (category) =>
          (await renderer.compose(jobSpec({ category, title: 'The Same Title For All' }), {})).canvas,
      ),
    );
    for (let i = 0; i < canvases.length; i++) {
      for (let j = i + 1; j < canvases.length; j++) {
        expect(
          meanDifference(canvases[i]!, canvases[j]!),
          `${categories[i]} vs ${categories[j]}`,
        ).toBeGreaterThan(20);
      }
    }
  });

  it('gives different titles in one category different designs', async () => {
    const titles = [
      'Why Your Code Is Slow',
      'The Future of AI Agents Is Here',
      'I Built a SaaS in 7 Days',
      'Stop Using Console Log',
    ];
    const canvases = await Promise.all(
      titles.map(async (title) => (await renderer.compose(jobSpec({ title }), {})).canvas),
    );
    for (let i = 0; i < canvases.length; i++) {
      for (let j = i + 1; j < canvases.length; j++)
        expect(meanDifference(canvases[i]!, canvases[j]!)).toBeGreaterThan(8);
    }
  });
});

describe('Renderer: recycled pixel buffers', () => {
  it('draws the same bytes when every background is evicted as the next is drawn, renders at once', async () => {
    const jobs = CATEGORIES.filter((c) => c !== 'auto')
      .slice(0, 6)
      .map((category, i) => jobSpec({ title: `Recycled pixels, take ${i}`, category, outputFormat: 'png' }));
    const expected: Buffer[] = [];
    for (const job of jobs) expected.push((await renderer.render(job, {})).image);
    // Buffers full of junk are the first reused: a byte a render forgets to write shows.
    const { width, height } = dimensionsOf(jobs[0]!.format, jobs[0]!.model);
    const bytes = width * height * 3;
    canvasBuffers.resize(0);
    limitCanvasBuffers(2);
    for (let i = 0; i < 2; i++) canvasBuffers.give(Buffer.alloc(bytes, 0xab));
    expect(canvasBuffers.bytes).toBe(2 * bytes);
    // Less than one youtube background: each drawn evicts the last, whose buffer the next draw reuses.
    limitPixelCaches(2 * 1024 * 1024);
    try {
      for (let round = 0; round < 3; round++) {
        const images = await Promise.all(jobs.map(async (job) => (await renderer.render(job, {})).image));
        images.forEach((image, i) =>
          expect(image.equals(expected[i]!), `job ${i}, round ${round}`).toBe(true),
        );
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(pixelCaches.backgrounds.size).toBe(1);
    } finally {
      limitPixelCaches(DEFAULT_PIXEL_CACHE_BYTES);
    }
  });
});

describe('Renderer: packed backgrounds', () => {
  const evictRaw = () => {
    pixelCaches.backgrounds.resize(0);
    limitPixelCaches(DEFAULT_PIXEL_CACHE_BYTES);
  };
  /** Renders `job` with empty caches; its background is then the one packed entry, under `key`. */
  const drawAndPack = async (job: ReturnType<typeof jobSpec>) => {
    // Packs of earlier tests' backgrounds land first, not among this one's.
    await packsSettled();
    pixelCaches.backgrounds.resize(0);
    pixelCaches.packedBackgrounds.resize(0);
    limitPixelCaches(DEFAULT_PIXEL_CACHE_BYTES);
    const drawn = (await renderer.render(job, {})).image;
    await packsSettled();
    expect(pixelCaches.packedBackgrounds.size).toBe(1);
    const [key] = [...pixelCaches.packedBackgrounds.keys()];
    return { drawn, key: key! };
  };

  it('unpacks a background whose raw pixels were evicted, to the same bytes, rather than drawing it', async () => {
    const job = jobSpec({ title: 'A background kept packed', outputFormat: 'png' });
    const { drawn, key } = await drawAndPack(job);
    const { width, height } = dimensionsOf(job.format, job.model);
    // Packed to an eighth or less: smooth gradients and flat shapes deflate well.
    expect(pixelCaches.packedBackgrounds.cost).toBeLessThan((width * height * 3) / 4);

    evictRaw();
    expect((await renderer.render(job, {})).image.equals(drawn)).toBe(true);

    // Whatever the packed entry holds is what the next render starts from: no new drawing.
    const green = Buffer.alloc(width * height * 3);
    for (let i = 1; i < green.length; i += 3) green[i] = 255;
    pixelCaches.packedBackgrounds.set(key, deflateRawSync(green), 1);
    evictRaw();
    const { canvas } = await renderer.compose(job, {});
    expect(pixelAt(canvas, 1, 1)).toEqual({ r: 0, g: 255, b: 0 });
    expect(pixelCaches.packedBackgrounds.size).toBe(1);
  });

  it('unpacks through a fresh buffer for a render on its own, and in place beside other renders', async () => {
    const job = jobSpec({ title: 'Unpacked alone or in company', outputFormat: 'png' });
    const { width, height } = dimensionsOf(job.format, job.model);
    const unpackBuffers = (spy: { mock: { calls: unknown[][] } }) =>
      spy.mock.calls.filter(([size]) => (size as number) > width * height * 3).length;
    await drawAndPack(job);

    evictRaw();
    const alone = vi.spyOn(Buffer, 'allocUnsafe');
    const first = (await renderer.render(job, {})).image;
    expect(unpackBuffers(alone)).toBe(1);
    alone.mockRestore();

    evictRaw();
    const together = vi.spyOn(Buffer, 'allocUnsafe');
    const [a, b] = await Promise.all([renderer.render(job, {}), renderer.render(job, {})]);
    expect(unpackBuffers(together)).toBe(0);
    together.mockRestore();
    expect(a.image.equals(first) && b.image.equals(first)).toBe(true);
    expect(renders.inFlight).toBe(0);
  });

  it('draws a background again when its packed bytes do not unpack, and packs it anew', async () => {
    const job = jobSpec({ title: 'A packed background gone bad', outputFormat: 'png' });
    const { drawn, key } = await drawAndPack(job);
    const garbage = Buffer.from('not a deflate stream at all');
    pixelCaches.packedBackgrounds.set(key, garbage, garbage.length);

    evictRaw();
    expect((await renderer.render(job, {})).image.equals(drawn)).toBe(true);
    await packsSettled();
    expect(pixelCaches.packedBackgrounds.get(key)).not.toBe(garbage);
    expect(pixelCaches.packedBackgrounds.get(key)!.length).toBeGreaterThan(1000);
  });
});
