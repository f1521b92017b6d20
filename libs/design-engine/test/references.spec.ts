import { beforeAll, describe, expect, it } from 'vitest';
import { fidelity, profileReferences, type ReferenceProfile } from '../src/layout/index.js';
import { referencePixels } from '../src/paint/references.js';
import { Renderer } from '../src/engine.js';
import { jobSpec } from '../testing/index.js';

const renderer = new Renderer();

async function profileOf(images: Buffer[]): Promise<ReferenceProfile> {
  return profileReferences(await Promise.all(images.map(referencePixels)));
}

/** Reference sets: thumbnails as creators save them, here made by the engine in other looks. */
const SETS = [
  {
    name: 'warm food, text left',
    category: 'food-cooking',
    titles: ['Crispy Chicken', 'The Best Ramen', 'Easy Tacos'],
  },
  { name: 'light pastel vlog', category: 'lifestyle-vlog', titles: ['My Sunday Reset', 'Paris in Spring'] },
  {
    name: 'dark news bulletin',
    category: 'news-commentary',
    titles: ['Markets Fall Again', 'What Happened Today', 'The Vote'],
  },
  { name: 'bright comedy', category: 'entertainment-comedy', titles: ['Try Not To Laugh'] },
] as const;

describe('reference sets: mirrored at 80 % fidelity or more', () => {
  const references = new Map<string, Buffer[]>();
  beforeAll(async () => {
    for (const set of SETS) {
      references.set(
        set.name,
        await Promise.all(
          set.titles.map(
            async (title) =>
              (await renderer.render(jobSpec({ title, category: set.category, outputFormat: 'png' }), {}))
                .image,
          ),
        ),
      );
    }
  });

  it.each(SETS.map((s) => s.name))('%s', async (name) => {
    const images = references.get(name)!;
    // A job in another category, with another title: the references must win.
    const output = await renderer.render(
      jobSpec({ title: 'A Completely Different Title Here', category: 'tech-saas', outputFormat: 'png' }),
      { references: images },
    );
    const [ref, out] = [await profileOf(images), await profileOf([output.image])];
    const f = fidelity(ref, out);
    const why = JSON.stringify({
      f,
      ref: ref.placement,
      out: out.placement,
      rc: ref.colours,
      oc: out.colours,
    });
    expect(f.palette, why).toBeGreaterThanOrEqual(0.75);
    expect(f.brightness, why).toBeGreaterThanOrEqual(0.75);
    expect(f.placement, why).toBeGreaterThanOrEqual(0.5);
    expect(f.overall, why).toBeGreaterThanOrEqual(0.8);
  });

  it('scores far lower without the references: the measure tells looks apart', async () => {
    const images = references.get('light pastel vlog')!;
    const plain = await renderer.render(
      jobSpec({ title: 'A Completely Different Title Here', category: 'tech-saas', outputFormat: 'png' }),
      {},
    );
    const f = fidelity(await profileOf(images), await profileOf([plain.image]));
    expect(f.overall).toBeLessThan(0.6);
  });
});
