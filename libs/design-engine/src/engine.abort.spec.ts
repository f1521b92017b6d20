import { encodeImage } from '@thumbforge/imaging';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { jobSpec, photoImage, solidImage } from '../testing/index.js';
import { Renderer } from './engine.js';
import { RenderAborted } from './paint/abort.js';

vi.mock('@thumbforge/imaging', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@thumbforge/imaging')>();
  return { ...actual, encodeImage: vi.fn(actual.encodeImage) };
});

const renderer = new Renderer();
const timedOut = new Error('timed out');

beforeEach(() => {
  vi.mocked(encodeImage).mockClear();
});

describe('Renderer: an aborted render', () => {
  it('does not start when its signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(timedOut);
    const job = jobSpec({ title: 'Never Drawn' });
    const rendering = renderer.render(job, { photo: await photoImage() }, controller.signal);
    await expect(rendering).rejects.toBeInstanceOf(RenderAborted);
    await expect(rendering).rejects.toMatchObject({ reason: timedOut });
    expect(encodeImage).not.toHaveBeenCalled();
  });

  it('aborted mid-way, stops before painting and never encodes', async () => {
    const controller = new AbortController();
    const job = jobSpec({ title: 'Stopped Half Way', outputFormat: 'png' });
    const rendering = renderer.render(job, { photo: await solidImage('#1d5e8a') }, controller.signal);
    // The render has begun (it is awaiting the design's image analysis) when the signal fires.
    controller.abort(timedOut);
    await expect(rendering).rejects.toMatchObject({ name: 'RenderAborted', reason: timedOut });
    expect(encodeImage).not.toHaveBeenCalled();
  });

  it('aborted while the photo is being cut, leaves a render sharing that cut unharmed', async () => {
    const photo = await solidImage('#8a3b1d');
    const job = jobSpec({ title: 'Two Renders One Photo', outputFormat: 'png' });
    const plan = await renderer.design(job, { photo });
    const controller = new AbortController();
    // The first paint starts the photo's cut (and the background) under its own signal; the second shares them.
    const aborted = renderer.paint(plan, { photo }, { signal: controller.signal });
    const sharing = renderer.paint(plan, { photo });
    controller.abort(timedOut);
    await expect(aborted).rejects.toBeInstanceOf(RenderAborted);
    const { canvas } = await sharing;
    const again = await renderer.paint(plan, { photo });
    expect(canvas.data.equals(again.canvas.data)).toBe(true);
  });

  it('with a signal that never fires, gives the same bytes as without one', async () => {
    const job = jobSpec({ title: 'Same Bytes Either Way' });
    const inputs = { photo: await photoImage() };
    const signalled = await renderer.render(job, inputs, new AbortController().signal);
    const plain = await renderer.render(job, inputs);
    expect(signalled.image.equals(plain.image)).toBe(true);
    expect(encodeImage).toHaveBeenCalledTimes(2);
  });
});
