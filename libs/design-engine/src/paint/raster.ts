import type { Rgb } from '../layout/index.js';
import { paintMask, type Canvas, type Mask } from './canvas.js';

/** A typed array the rasteriser keeps scratch in: made at a length, or viewed whole over a buffer. */
interface ScratchType<T> {
  new (length: number): T;
  new (buffer: ArrayBufferLike): T;
}

/**
 * Idle scratch arrays, for the next rasteriser or path. A render's are fresh megabytes (1–3 MB of
 * cells for a youtube title, three or four live at once; 100–300 KB of segments for each of its paths),
 * and they live long enough to be promoted, so dead ones wait for V8's full collections: in a
 * rendering replica each of those marks its whole heap, and meanwhile glibc's heap grows to hold them
 * and does not shrink back. So the pool keeps the largest arrays it has seen, which serve any request
 * up to their size, and hands out the smallest that fits; an array given back replaces smaller idle
 * ones rather than being dropped. New arrays are rounded up to `rounding` elements, so requests of
 * nearly the same size share them.
 */
export class ScratchPool<T extends Float32Array | Float64Array> {
  private readonly idle: T[] = [];

  constructor(
    private readonly Type: ScratchType<T>,
    private readonly rounding: number,
    private readonly maxBuffers: number,
    private readonly maxBytes: number,
  ) {}

  /** A view of `length` elements, holding whatever its last user left in it. */
  take(length: number): T {
    let best = -1;
    for (let i = 0; i < this.idle.length; i++) {
      const array = this.idle[i]!;
      if (array.length >= length && (best < 0 || array.length < this.idle[best]!.length)) best = i;
    }
    const whole =
      best < 0
        ? new this.Type(Math.ceil(length / this.rounding) * this.rounding)
        : this.idle.splice(best, 1)[0]!;
    return whole.subarray(0, length) as T;
  }

  /** Takes an array back; the caller keeps no reference to it. An empty one is not kept. */
  give(array: T): void {
    if (array.buffer.byteLength === 0) return;
    const whole = new this.Type(array.buffer);
    const fits = () => this.idle.length < this.maxBuffers && this.bytes + whole.byteLength <= this.maxBytes;
    // Smallest first: those are the ones to give up for a larger array.
    this.idle.sort((a, b) => a.length - b.length);
    while (!fits() && this.idle.length > 0 && this.idle[0]!.length < whole.length) this.idle.shift();
    if (fits()) this.idle.push(whole);
  }

  /** Idle bytes held. */
  get bytes(): number {
    return this.idle.reduce((sum, array) => sum + array.byteLength, 0);
  }
}

/**
 * A title's masks are drawn in one synchronous stretch, so one render's set is all a process needs
 * however many renders run at once: a youtube sd title holds three or four buffers of 1.1 to 2.6 MB.
 * New ones are rounded up to 256 KiB. The rasteriser clears the cells as it reads them, so the pool's
 * cells are always zero.
 */
const cellPool = new ScratchPool<Float32Array>(Float32Array, 64 * 1024, 4, 12 * 1024 * 1024);

/**
 * A title's paths are built and rasterised in the same synchronous stretch too: one per ink, their
 * union and the plates, up to 300 KB each. New ones are rounded up to 64 KiB.
 */
const segmentPool = new ScratchPool<Float64Array>(Float64Array, 8 * 1024, 8, 4 * 1024 * 1024);

/**
 * An anti-aliased scanline rasteriser for glyph outlines and shapes (the signed-area accumulation
 * method of font-rs): each edge adds its signed coverage to the cells it crosses, and a running sum
 * along each row gives the exact area covered in every pixel. Non-zero winding for shapes of
 * consistent direction, which is what fonts use; overlapping contours saturate rather than cancel.
 */
export class Coverage {
  /** Signed area deltas, one per pixel, each row padded by two cells for edges at the right edge. */
  readonly cells: Float32Array;
  readonly stride: number;
  /** Per row, the first and past-the-last cell any edge touched: the rest of the row is empty. */
  readonly rowStart: Int32Array;
  readonly rowEnd: Int32Array;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.stride = width + 2;
    this.cells = cellPool.take(this.stride * height);
    this.rowStart = new Int32Array(height).fill(this.stride);
    this.rowEnd = new Int32Array(height);
  }

  /**
   * The coverage of every pixel, 0 to 255, row by row, with the span of each row outside which it
   * is empty. Ends the rasteriser: its scratch cells are cleared as they are read and recycled.
   */
  toMask(left: number, top: number): Mask {
    const { width, height, stride, cells, rowStart, rowEnd } = this;
    const alpha = new Uint8Array(width * height);
    const spans = new Int32Array(height * 2);
    for (let y = 0; y < height; y++) {
      const from = rowStart[y]!;
      const to = rowEnd[y]!;
      if (to <= from) continue;
      const cellRow = y * stride;
      const alphaRow = y * width;
      const end = Math.min(width, to);
      let sum = 0;
      let first = -1;
      let last = -1;
      for (let x = from; x < end; x++) {
        sum += cells[cellRow + x]!;
        cells[cellRow + x] = 0;
        const a = sum < 0 ? -sum : sum;
        const v = a >= 1 ? 255 : (a * 255 + 0.5) | 0;
        if (v !== 0) {
          alpha[alphaRow + x] = v;
          if (first < 0) first = x;
          last = x;
        }
      }
      for (let x = end; x < to; x++) cells[cellRow + x] = 0;
      if (first >= 0) {
        spans[y * 2] = first;
        spans[y * 2 + 1] = last + 1;
      }
    }
    cellPool.give(cells);
    return { alpha, width, height, left, top, spans };
  }

  /** Hands the (cleared) scratch cells back for the next rasteriser. */
  release(): void {
    cellPool.give(this.cells);
  }

  /** Blends `colour` through the coverage into the canvas, its top-left corner at `left`, `top`. */
  paint(canvas: Canvas, left: number, top: number, colour: Rgb, opacity = 1): void {
    paintLayers(canvas, { x: left, y: top, width: this.width, height: this.height }, [
      { coverage: this, colour, opacity },
    ]);
  }

  /** Adds every segment of a flattened path, scaled by `scale` then moved by `dx`, `dy`. */
  fill(path: FlatPath, dx = 0, dy = 0, scale = 1): void {
    const segments = path.segments;
    const count = path.length;
    for (let i = 0; i < count; i += 4) {
      this.edge(
        segments[i]! * scale + dx,
        segments[i + 1]! * scale + dy,
        segments[i + 2]! * scale + dx,
        segments[i + 3]! * scale + dy,
      );
    }
  }

  private edge(ax: number, ay: number, bx: number, by: number): void {
    if (ay === by) return;
    const w = this.stride;
    const h = this.height;
    let dir = 1;
    let x0 = ax;
    let y0 = ay;
    let x1 = bx;
    let y1 = by;
    if (ay > by) {
      dir = -1;
      x0 = bx;
      y0 = by;
      x1 = ax;
      y1 = ay;
    }
    // Outside the rows entirely: nothing to add.
    if (y1 <= 0 || y0 >= h) return;
    // Columns are clamped to the canvas: area beyond an edge lands on that edge's column.
    const maxX = this.width;
    const dxdy = (x1 - x0) / (y1 - y0);
    let x = x0;
    if (y0 < 0) {
      x -= y0 * dxdy;
      y0 = 0;
    }
    const rowStarts = this.rowStart;
    const rowEnds = this.rowEnd;
    const yEnd = Math.min(h, Math.ceil(y1));
    const cells = this.cells;
    for (let y = Math.floor(y0); y < yEnd; y++) {
      const rowStart = y * w;
      const dy = Math.min(y + 1, y1) - Math.max(y, y0);
      const xNext = x + dxdy * dy;
      const d = dy * dir;
      let xa = x < xNext ? x : xNext;
      let xb = x < xNext ? xNext : x;
      xa = xa < 0 ? 0 : xa > maxX ? maxX : xa;
      xb = xb < 0 ? 0 : xb > maxX ? maxX : xb;
      const xaFloor = Math.floor(xa);
      const xbCeil = Math.ceil(xb);
      if (xaFloor < rowStarts[y]!) rowStarts[y] = xaFloor;
      if (xbCeil + 2 > rowEnds[y]!) rowEnds[y] = xbCeil + 2 < w ? xbCeil + 2 : w;
      if (xbCeil <= xaFloor + 1) {
        const xm = 0.5 * (xa + xb) - xaFloor;
        cells[rowStart + xaFloor] += d - d * xm;
        cells[rowStart + xaFloor + 1] += d * xm;
      } else {
        const s = 1 / (xb - xa);
        const xaFrac = xa - xaFloor;
        const a0 = 0.5 * s * (1 - xaFrac) * (1 - xaFrac);
        const xbFrac = xb - xbCeil + 1;
        const am = 0.5 * s * xbFrac * xbFrac;
        cells[rowStart + xaFloor] += d * a0;
        if (xbCeil === xaFloor + 2) {
          cells[rowStart + xaFloor + 1] += d * (1 - a0 - am);
        } else {
          const a1 = s * (1.5 - xaFrac);
          cells[rowStart + xaFloor + 1] += d * (a1 - a0);
          for (let xi = xaFloor + 2; xi < xbCeil - 1; xi++) cells[rowStart + xi] += d * s;
          const a2 = a1 + (xbCeil - xaFloor - 3) * s;
          cells[rowStart + xbCeil - 1] += d * (1 - a2 - am);
        }
        cells[rowStart + xbCeil] += d * am;
      }
      x = xNext;
    }
  }
}

/** A layer of a region: a coverage being rasterised (the region's size), or a finished mask. */
export type Layer =
  { coverage: Coverage; colour: Rgb; opacity: number } | { mask: Mask; colour: Rgb; opacity: number };

/**
 * Blends layers, in order, into the canvas over a region. Each coverage is accumulated row by row
 * within the spans its edges touched, blended as it goes, its cells cleared and recycled: no mask is
 * materialised for it.
 */
export function paintLayers(
  canvas: Canvas,
  region: { x: number; y: number; width: number; height: number },
  layers: Layer[],
): void {
  for (const layer of layers) {
    if ('mask' in layer) paintMask(canvas, layer.mask, layer.colour, layer.opacity);
    else paintCoverage(canvas, region, layer.coverage, layer.colour, layer.opacity);
  }
}

function paintCoverage(
  canvas: Canvas,
  region: { x: number; y: number },
  coverage: Coverage,
  colour: Rgb,
  opacity: number,
): void {
  const { data, width: W, height: H } = canvas;
  const { width, height, stride, cells, rowStart, rowEnd } = coverage;
  const { r, g, b } = colour;
  for (let y = 0; y < height; y++) {
    const from = rowStart[y]!;
    const to = rowEnd[y]!;
    if (to <= from) continue;
    const row = y * stride;
    const cy = region.y + y;
    const end = cy >= 0 && cy < H ? Math.min(to, width, W - region.x) : from;
    let sum = 0;
    let x = from;
    let o = (cy * W + region.x + from) * 3;
    for (; x < end; x++, o += 3) {
      sum += cells[row + x]!;
      cells[row + x] = 0;
      let a = sum < 0 ? -sum : sum;
      if (a < 0.002) continue;
      if (a > 1) a = 1;
      a *= opacity;
      if (a >= 0.998) {
        data[o] = r;
        data[o + 1] = g;
        data[o + 2] = b;
      } else {
        data[o] = data[o]! + (r - data[o]!) * a + 0.5;
        data[o + 1] = data[o + 1]! + (g - data[o + 1]!) * a + 0.5;
        data[o + 2] = data[o + 2]! + (b - data[o + 2]!) * a + 0.5;
      }
    }
    for (; x < to; x++) cells[row + x] = 0;
  }
  coverage.release();
}

const EMPTY_SEGMENTS = new Float64Array(0);

/** Line segments (x0 y0 x1 y1 …) of flattened outlines, to rasterise once or many times over. */
export class FlatPath {
  segments: Float64Array;
  length = 0;
  private startX = 0;
  private startY = 0;
  private penX = 0;
  private penY = 0;

  /** `pool` is where the segments come from and go back to: the engine's own but in tests. */
  constructor(private readonly pool = segmentPool) {
    this.segments = pool.take(1024);
  }

  moveTo(x: number, y: number): void {
    this.close();
    this.startX = this.penX = x;
    this.startY = this.penY = y;
  }

  lineTo(x: number, y: number): void {
    if (this.length + 4 > this.segments.length) this.grow(this.length + 4);
    const s = this.segments;
    s[this.length] = this.penX;
    s[this.length + 1] = this.penY;
    s[this.length + 2] = x;
    s[this.length + 3] = y;
    this.length += 4;
    this.penX = x;
    this.penY = y;
  }

  quadTo(cx: number, cy: number, x: number, y: number): void {
    const x0 = this.penX;
    const y0 = this.penY;
    const ddx = x0 - 2 * cx + x;
    const ddy = y0 - 2 * cy + y;
    const deviation = ddx * ddx + ddy * ddy;
    // A chord of 1/n of the curve strays |p0 − 2c + p2| / 4n² from it: keep that under 0.1 px.
    const n = deviation < 0.16 ? 1 : 1 + Math.floor(Math.sqrt(Math.sqrt(6.25 * deviation)));
    for (let i = 1; i <= n; i++) {
      const t = i / n;
      const u = 1 - t;
      this.lineTo(u * u * x0 + 2 * u * t * cx + t * t * x, u * u * y0 + 2 * u * t * cy + t * t * y);
    }
  }

  cubicTo(c1x: number, c1y: number, c2x: number, c2y: number, x: number, y: number): void {
    const x0 = this.penX;
    const y0 = this.penY;
    const d1 = (x0 - 2 * c1x + c2x) ** 2 + (y0 - 2 * c1y + c2y) ** 2;
    const d2 = (c1x - 2 * c2x + x) ** 2 + (c1y - 2 * c2y + y) ** 2;
    const deviation = Math.max(d1, d2);
    const n = deviation < 0.02 ? 1 : 1 + Math.floor(Math.sqrt(Math.sqrt(56 * deviation)));
    for (let i = 1; i <= n; i++) {
      const t = i / n;
      const u = 1 - t;
      const a = u * u * u;
      const b = 3 * u * u * t;
      const c = 3 * u * t * t;
      const d = t * t * t;
      this.lineTo(a * x0 + b * c1x + c * c2x + d * x, a * y0 + b * c1y + c * c2y + d * y);
    }
  }

  close(): void {
    if (this.penX !== this.startX || this.penY !== this.startY) this.lineTo(this.startX, this.startY);
  }

  /** Adds another path's segments. */
  append(other: FlatPath): void {
    this.close();
    if (this.length + other.length > this.segments.length) this.grow(this.length + other.length);
    this.segments.set(other.segments.subarray(0, other.length), this.length);
    this.length += other.length;
  }

  /**
   * Hands the segments back for the next path: the path is empty after this. Only once nothing
   * rasterises it any more, in the same synchronous stretch that built it.
   */
  release(): void {
    this.pool.give(this.segments);
    this.segments = EMPTY_SEGMENTS;
    this.length = 0;
  }

  /** At least double, so a path built a segment at a time copies each segment about once. */
  private grow(needed: number): void {
    const grown = this.pool.take(Math.max(needed, this.segments.length * 2));
    grown.set(this.segments.subarray(0, this.length));
    this.pool.give(this.segments);
    this.segments = grown;
  }

  /** A closed polygon, in order. */
  polygon(points: ReadonlyArray<readonly [number, number]>): void {
    if (points.length < 3) return;
    this.moveTo(points[0]![0], points[0]![1]);
    for (let i = 1; i < points.length; i++) this.lineTo(points[i]![0], points[i]![1]);
    this.close();
  }

  rect(x: number, y: number, w: number, h: number): void {
    this.polygon([
      [x, y],
      [x + w, y],
      [x + w, y + h],
      [x, y + h],
    ]);
  }

  /** A rectangle with rounded corners (quarter circles approximated by cubic curves). */
  roundRect(x: number, y: number, w: number, h: number, radius: number): void {
    const r = Math.max(0, Math.min(radius, w / 2, h / 2));
    const k = r * 0.5523;
    this.moveTo(x + r, y);
    this.lineTo(x + w - r, y);
    this.cubicTo(x + w - r + k, y, x + w, y + r - k, x + w, y + r);
    this.lineTo(x + w, y + h - r);
    this.cubicTo(x + w, y + h - r + k, x + w - r + k, y + h, x + w - r, y + h);
    this.lineTo(x + r, y + h);
    this.cubicTo(x + r - k, y + h, x, y + h - r + k, x, y + h - r);
    this.lineTo(x, y + r);
    this.cubicTo(x, y + r - k, x + r - k, y, x + r, y);
    this.close();
  }

  circle(cx: number, cy: number, r: number): void {
    const k = r * 0.5523;
    this.moveTo(cx + r, cy);
    this.cubicTo(cx + r, cy + k, cx + k, cy + r, cx, cy + r);
    this.cubicTo(cx - k, cy + r, cx - r, cy + k, cx - r, cy);
    this.cubicTo(cx - r, cy - k, cx - k, cy - r, cx, cy - r);
    this.cubicTo(cx + k, cy - r, cx + r, cy - k, cx + r, cy);
    this.close();
  }
}
