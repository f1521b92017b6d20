import { describe, expect, it } from 'vitest';
import { Calmness } from './background-shapes.js';
import type { Scene } from './background-scene.js';

/** The factor as a closed form of the pixel: what `Calmness` answers, without its shortcuts. */
function reference(box: { x: number; y: number; width: number; height: number }, unit: number) {
  const feather = unit * 0.16;
  const radius = unit * 0.08;
  return (x: number, y: number) => {
    const ax = Math.abs(x + 0.5 - (box.x + box.width / 2)) - (box.width / 2 - radius);
    const ay = Math.abs(y + 0.5 - (box.y + box.height / 2)) - (box.height / 2 - radius);
    const dx = Math.max(ax, 0);
    const dy = Math.max(ay, 0);
    const outside = Math.hypot(dx, dy) - radius;
    if (outside >= feather) return 1;
    const t = Math.max(outside, 0) / feather;
    return 0.2 + 0.8 * t * t * (3 - 2 * t);
  };
}

describe('Calmness', () => {
  it.each([
    { W: 1280, H: 720, box: { x: 96, y: 180, width: 760, height: 360 } },
    { W: 1080, H: 1350, box: { x: 80, y: 900, width: 920, height: 360 } },
    { W: 1200, H: 675, box: { x: 0, y: 0, width: 600, height: 300 } },
    { W: 640, H: 360, box: { x: 300.5, y: 10.25, width: 20, height: 300 } },
  ])('answers the closed form at every pixel of a $W x $H canvas', ({ W, H, box }) => {
    const unit = Math.min(W, H);
    const scene = { unit, template: { titleBox: box } } as unknown as Scene;
    const calm = new Calmness(scene, W);
    const expected = reference(box, unit);
    let mismatches = 0;
    let softened = 0;
    for (let y = 0; y < H; y++) {
      calm.row(y);
      for (let x = 0; x < W; x++) {
        const got = calm.at(x);
        if (Math.abs(got - expected(x, y)) > 1e-12) mismatches++;
        if (got < 1) softened++;
      }
    }
    expect(mismatches).toBe(0);
    // The title's box and its soft edge are weakened, the rest of the canvas is not.
    expect(softened).toBeGreaterThan(0);
    expect(softened).toBeLessThan(W * H);
  });

  it('says which rows show all of the shapes', () => {
    const scene = { unit: 720, template: { titleBox: { x: 100, y: 300, width: 600, height: 100 } } };
    const calm = new Calmness(scene as unknown as Scene, 1280);
    expect(calm.row(350)).toBe(true);
    expect(calm.row(0)).toBe(false);
    expect(calm.at(640)).toBe(1);
  });
});
