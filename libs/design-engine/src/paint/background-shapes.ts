import { mirrorBands } from './background-smooth.js';
import { n, type Scene } from './background-scene.js';

/** Crisp shapes over the smooth layer. */
export function crispLayer(s: Scene): string | null {
  return crispDecoration(s) || null;
}

/**
 * How much of the shapes shows at a pixel: a fifth over the title's box, rising to all of it over a
 * wide soft edge, so decoration recedes where the text may go and the text sits on calm ground.
 * Asked row by row (`row`, then `at` for its columns): a background asks it for most of its pixels, and
 * the rows and columns a whole pixel past the soft edge answer 1 without the distance's square root.
 */
export class Calmness {
  private static readonly KEEP = 0.2;
  private readonly feather: number;
  private readonly radius: number;
  private readonly cy: number;
  private readonly hy: number;
  /** Per column, how far it lies past the box's rounded corners' centres (0 within). */
  private readonly dx: Float64Array;
  /** Per column, whether every pixel of it shows all of the shapes. */
  private readonly clear: Uint8Array;
  private dy = 0;
  private clearRow = false;

  constructor(s: Scene, width: number) {
    const box = s.template.titleBox;
    this.feather = s.unit * 0.16;
    this.radius = s.unit * 0.08;
    this.cy = box.y + box.height / 2;
    this.hy = box.height / 2 - this.radius;
    const cx = box.x + box.width / 2;
    const hx = box.width / 2 - this.radius;
    this.dx = new Float64Array(width);
    this.clear = new Uint8Array(width);
    for (let x = 0; x < width; x++) {
      const ax = Math.abs(x + 0.5 - cx) - hx;
      this.dx[x] = ax > 0 ? ax : 0;
      this.clear[x] = this.beyondEdge(this.dx[x]!) ? 1 : 0;
    }
  }

  /** Moves to row `y`; false when the whole row shows all of the shapes (`at` answers 1). */
  row(y: number): boolean {
    const ay = Math.abs(y + 0.5 - this.cy) - this.hy;
    this.dy = ay > 0 ? ay : 0;
    this.clearRow = this.beyondEdge(this.dy);
    return !this.clearRow;
  }

  /** The factor at column `x` of the current row. */
  at(x: number): number {
    if (this.clearRow || this.clear[x] === 1) return 1;
    const dx = this.dx[x]!;
    const dy = this.dy;
    const outside = (dx === 0 ? dy : dy === 0 ? dx : Math.sqrt(dx * dx + dy * dy)) - this.radius;
    if (outside >= this.feather) return 1;
    const t = outside <= 0 ? 0 : outside / this.feather;
    return Calmness.KEEP + (1 - Calmness.KEEP) * t * t * (3 - 2 * t);
  }

  /**
   * Whether a distance along one axis puts a pixel past the soft edge whatever the other one is: with
   * a pixel to spare, so the rounding of the square root in `at` cannot put it back inside.
   */
  private beyondEdge(d: number): boolean {
    return d - this.radius - this.feather >= 1;
  }
}

function crispDecoration(s: Scene): string {
  switch (s.kind) {
    case 'grid':
      return grid(s);
    case 'chart':
      return chart(s);
    case 'paper':
      return paper(s);
    case 'speed':
      return speed(s);
    case 'clinic':
      return clinic(s);
    case 'burst':
      return burst(s, 0.1, s.palette.accent);
    case 'pop':
      return burst(s, 0.22, '#ffffff') + halftone(s);
    case 'horizon':
      return horizon(s);
    case 'neon':
      return neon(s);
    case 'bulletin':
      return bulletin(s);
    case 'mesh':
      return rings(s);
    case 'mirror':
      return mirrorBands(s);
    case 'bokeh':
      return '';
  }
}

/** A perspective grid receding to a horizon, and a glowing sun above it at the focus. */
function grid(s: Scene): string {
  const { W, H, palette, focus, unit } = s;
  const horizon = H * 0.6;
  const lines: string[] = [];
  for (let i = 1; i <= 9; i++) {
    const y = horizon + (H - horizon) * (i / 9) ** 1.9;
    lines.push(`M0 ${n(y)}H${W}`);
  }
  for (let i = -14; i <= 14; i++) {
    lines.push(`M${n(focus.x)} ${n(horizon)}L${n(focus.x + i * unit * 0.22)} ${n(H + 2)}`);
  }
  const nodes: string[] = [];
  for (let i = 0; i < 9; i++) {
    const x = focus.x + (s.random() - 0.5) * unit * 0.9;
    const y = H * (0.12 + s.random() * 0.4);
    nodes.push(`<circle cx="${n(x)}" cy="${n(y)}" r="${n(unit * 0.006)}" fill="${palette.accent}"/>`);
    nodes.push(
      `<path d="M${n(x)} ${n(y)}h${n(unit * (0.05 + s.random() * 0.08))}" stroke="${palette.accent}" stroke-opacity="0.5" stroke-width="${n(unit * 0.003)}"/>`,
    );
  }
  return `<path d="${lines.join('')}" stroke="${palette.accent}" stroke-opacity="0.32" stroke-width="${n(unit * 0.0035)}" fill="none"/>
    <circle cx="${n(focus.x)}" cy="${n(horizon - unit * 0.02)}" r="${n(unit * 0.18)}" fill="none" stroke="${palette.accent}" stroke-opacity="0.45" stroke-width="${n(unit * 0.006)}"/>
    ${nodes.join('')}`;
}

/** A rising area chart with an arrow, over faint gridlines, with candlesticks behind. */
function chart(s: Scene): string {
  const { W, H, palette, unit, random: rnd, focus } = s;
  const left = Math.max(0, focus.x - W * 0.45);
  const right = Math.min(W, focus.x + W * 0.45);
  const points: Array<[number, number]> = [];
  const steps = 9;
  for (let i = 0; i <= steps; i++) {
    const t = i / steps;
    const trend = H * (0.82 - 0.62 * t);
    points.push([left + (right - left) * t, trend + (i % 2 === 0 ? 1 : -1) * H * (0.03 + rnd() * 0.05)]);
  }
  const line = points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${n(x)} ${n(y)}`).join('');
  const [ex, ey] = points.at(-1)!;
  const [px, py] = points.at(-2)!;
  const angle = Math.atan2(ey - py, ex - px);
  const head = unit * 0.06;
  const arrow = [
    [ex + Math.cos(angle) * head, ey + Math.sin(angle) * head],
    [ex + Math.cos(angle + 2.5) * head, ey + Math.sin(angle + 2.5) * head],
    [ex + Math.cos(angle - 2.5) * head, ey + Math.sin(angle - 2.5) * head],
  ]
    .map(([x, y]) => `${n(x!)},${n(y!)}`)
    .join(' ');
  const gridLines = Array.from({ length: 6 }, (_, i) => `M0 ${n((H * (i + 1)) / 7)}H${W}`).join('');
  const candles: string[] = [];
  for (let i = 0; i < 12; i++) {
    const x = left + ((right - left) * (i + 0.5)) / 12;
    const h = H * (0.06 + rnd() * 0.14);
    const y = H * (0.75 - (0.5 * i) / 12) - h / 2 + (rnd() - 0.5) * H * 0.08;
    candles.push(
      `<rect x="${n(x - unit * 0.012)}" y="${n(y)}" width="${n(unit * 0.024)}" height="${n(h)}" rx="${n(unit * 0.004)}"/>`,
    );
  }
  return `<path d="${gridLines}" stroke="#ffffff" stroke-opacity="0.06" stroke-width="${n(unit * 0.003)}"/>
    <g fill="${palette.far}" fill-opacity="0.45">${candles.join('')}</g>
    <path d="${line}L${n(right)} ${H}L${n(left)} ${H}Z" fill="${palette.accent}" fill-opacity="0.12"/>
    <path d="${line}" fill="none" stroke="${palette.accent}" stroke-width="${n(unit * 0.014)}" stroke-linejoin="round" stroke-linecap="round"/>
    <polygon points="${arrow}" fill="${palette.accent}"/>`;
}

/** Dotted exercise-book paper, a big colour blob at the focus and a few doodles. */
function paper(s: Scene): string {
  const { W, H, palette, unit, focus, random: rnd } = s;
  const step = unit * 0.045;
  const dots: string[] = [];
  const r = unit * 0.0035;
  for (let y = step / 2; y < H; y += step) {
    for (let x = step / 2; x < W; x += step)
      dots.push(
        `M${n(x - r)} ${n(y)}a${n(r)} ${n(r)} 0 1 0 ${n(2 * r)} 0a${n(r)} ${n(r)} 0 1 0 ${n(-2 * r)} 0`,
      );
  }
  const blob = unit * (0.36 + rnd() * 0.08);
  const star = (cx: number, cy: number, size: number) => {
    const pts: string[] = [];
    for (let i = 0; i < 10; i++) {
      const a = (i / 10) * Math.PI * 2 - Math.PI / 2;
      const rr = i % 2 === 0 ? size : size * 0.45;
      pts.push(`${n(cx + Math.cos(a) * rr)},${n(cy + Math.sin(a) * rr)}`);
    }
    return `<polygon points="${pts.join(' ')}" fill="${palette.plate}" stroke="${palette.ink}" stroke-width="${n(unit * 0.006)}" stroke-linejoin="round"/>`;
  };
  return `<path d="${dots.join('')}" fill="${palette.ink}" fill-opacity="0.16"/>
    <circle cx="${n(focus.x)}" cy="${n(focus.y)}" r="${n(blob)}" fill="${palette.accent}"/>
    <circle cx="${n(focus.x + blob * 0.55)}" cy="${n(focus.y - blob * 0.7)}" r="${n(blob * 0.28)}" fill="${palette.plate}"/>
    <path d="M${n(focus.x - blob * 0.9)} ${n(focus.y + blob * 1.05)}q${n(blob * 0.2)} ${n(-blob * 0.2)} ${n(blob * 0.4)} 0t${n(blob * 0.4)} 0t${n(blob * 0.4)} 0" fill="none" stroke="${palette.ink}" stroke-width="${n(unit * 0.012)}" stroke-linecap="round"/>
    ${star(focus.x - blob * 0.95, focus.y - blob * 0.75, unit * 0.05)}`;
}

/** Slanted speed bands racing across the focus side. */
function speed(s: Scene): string {
  const { H, palette, unit, focus, random: rnd } = s;
  const bands: string[] = [];
  for (let i = 0; i < 7; i++) {
    const x = focus.x + (i - 3) * unit * 0.16 + (rnd() - 0.5) * unit * 0.06;
    const w = unit * (0.02 + rnd() * 0.07);
    const slant = H * 0.45;
    const colour = i % 3 === 0 ? palette.accent : palette.far;
    bands.push(
      `<path d="M${n(x + slant)} 0h${n(w)}L${n(x + w - slant)} ${H}h${n(-w)}Z" fill="${colour}" fill-opacity="${n(0.35 + rnd() * 0.45)}"/>`,
    );
  }
  return bands.join('');
}

/** Soft rings, plus signs and a heartbeat line. */
function clinic(s: Scene): string {
  const { W, H, palette, unit, focus, random: rnd } = s;
  const plus = (x: number, y: number, size: number, opacity: number) =>
    `<path d="M${n(x - size * 0.18)} ${n(y - size / 2)}h${n(size * 0.36)}v${n(size * 0.32)}h${n(size * 0.32)}v${n(size * 0.36)}h${n(-size * 0.32)}v${n(size * 0.32)}h${n(-size * 0.36)}v${n(-size * 0.32)}h${n(-size * 0.32)}v${n(-size * 0.36)}h${n(size * 0.32)}Z" fill="${palette.accent}" fill-opacity="${opacity}"/>`;
  const y = H * 0.8;
  const beat = `M0 ${n(y)}H${n(focus.x - unit * 0.3)}l${n(unit * 0.05)} ${n(-unit * 0.12)}l${n(unit * 0.06)} ${n(unit * 0.22)}l${n(unit * 0.05)} ${n(-unit * 0.1)}H${W}`;
  return `<circle cx="${n(focus.x)}" cy="${n(focus.y)}" r="${n(unit * 0.34)}" fill="${palette.far}" fill-opacity="0.55"/>
    <circle cx="${n(focus.x)}" cy="${n(focus.y)}" r="${n(unit * 0.44)}" fill="none" stroke="${palette.accent}" stroke-opacity="0.35" stroke-width="${n(unit * 0.008)}"/>
    ${plus(focus.x, focus.y, unit * 0.26, 0.9)}
    ${plus(focus.x + unit * (0.3 + rnd() * 0.1), focus.y - unit * 0.32, unit * 0.07, 0.6)}
    ${plus(focus.x - unit * 0.38, focus.y + unit * 0.3, unit * 0.05, 0.5)}
    <path d="${beat}" fill="none" stroke="${palette.accent}" stroke-opacity="0.55" stroke-width="${n(unit * 0.01)}" stroke-linejoin="round"/>`;
}

/** Rays bursting from the focus. */
function burst(s: Scene, opacity: number, colour: string): string {
  const { W, H, focus } = s;
  const rays = 18;
  const reach = Math.hypot(W, H);
  const wedges: string[] = [];
  const turn = s.random() * Math.PI;
  for (let i = 0; i < rays; i++) {
    const a0 = turn + (i / rays) * Math.PI * 2;
    const a1 = a0 + (Math.PI / rays) * 0.9;
    wedges.push(
      `M${n(focus.x)} ${n(focus.y)}L${n(focus.x + Math.cos(a0) * reach)} ${n(focus.y + Math.sin(a0) * reach)}L${n(focus.x + Math.cos(a1) * reach)} ${n(focus.y + Math.sin(a1) * reach)}Z`,
    );
  }
  return `<path d="${wedges.join('')}" fill="${colour}" fill-opacity="${opacity}"/>`;
}

/** Comic-book halftone dots gathered in the corners. */
function halftone(s: Scene): string {
  const { W, H, palette, unit } = s;
  const step = unit * 0.04;
  const dots: string[] = [];
  for (let y = step / 2; y < H; y += step) {
    for (let x = step / 2; x < W; x += step) {
      const d = Math.min(Math.hypot(x, y), Math.hypot(W - x, H - y)) / (unit * 0.55);
      if (d >= 1) continue;
      const r = step * 0.42 * (1 - d);
      dots.push(
        `M${n(x - r)} ${n(y)}a${n(r)} ${n(r)} 0 1 0 ${n(2 * r)} 0a${n(r)} ${n(r)} 0 1 0 ${n(-2 * r)} 0`,
      );
    }
  }
  return `<path d="${dots.join('')}" fill="${palette.far}" fill-opacity="0.55"/>`;
}

/** A sun over layered mountain ridges. */
function horizon(s: Scene): string {
  const { W, H, palette, unit, focus, random: rnd } = s;
  const ridge = (base: number, amplitude: number, colour: string, opacity: number) => {
    const pts: string[] = [`M0 ${H}`];
    const count = 7;
    for (let i = 0; i <= count; i++) {
      const x = (W * i) / count;
      const y = base - (i % 2 === 1 ? amplitude * (0.6 + rnd() * 0.6) : amplitude * rnd() * 0.3);
      pts.push(`L${n(x)} ${n(y)}`);
    }
    pts.push(`L${W} ${H}Z`);
    return `<path d="${pts.join('')}" fill="${colour}" fill-opacity="${opacity}"/>`;
  };
  return `<circle cx="${n(focus.x)}" cy="${n(H * 0.56)}" r="${n(unit * 0.17)}" fill="${palette.accent}"/>
    ${ridge(H * 0.8, H * 0.22, palette.far, 0.55)}
    ${ridge(H * 0.9, H * 0.16, palette.base, 0.9)}`;
}

/** Neon shards and streaks. */
function neon(s: Scene): string {
  const { H, palette, unit, focus, random: rnd } = s;
  const shards: string[] = [];
  for (let i = 0; i < 6; i++) {
    const x = focus.x + (rnd() - 0.5) * unit * 1.1;
    const y = focus.y + (rnd() - 0.5) * H * 0.9;
    const size = unit * (0.08 + rnd() * 0.16);
    const a = rnd() * Math.PI;
    const pts = [0, 2.1, 4.0].map(
      (o) => `${n(x + Math.cos(a + o) * size)},${n(y + Math.sin(a + o) * size * 0.7)}`,
    );
    const colour = i % 2 === 0 ? palette.accent : palette.far;
    shards.push(
      `<polygon points="${pts.join(' ')}" fill="${colour}" fill-opacity="${n(0.25 + rnd() * 0.3)}" stroke="${colour}" stroke-width="${n(unit * 0.004)}"/>`,
    );
  }
  const streaks: string[] = [];
  for (let i = 0; i < 4; i++) {
    const x = focus.x + (i - 1.5) * unit * 0.2;
    streaks.push(`M${n(x + H * 0.3)} 0L${n(x - H * 0.3)} ${H}`);
  }
  return `${shards.join('')}<path d="${streaks.join('')}" stroke="${palette.accent}" stroke-opacity="0.55" stroke-width="${n(unit * 0.006)}"/>`;
}

/** A bold band of the accent and broadcast stripes. */
function bulletin(s: Scene): string {
  const { W, H, palette, unit, template } = s;
  const box = template.titleBox;
  // The band leans left by 0.44 unit from top to bottom: it starts clear of the title box.
  const x =
    template.align === 'right'
      ? Math.min(box.x - unit * 0.3, unit * 0.12)
      : Math.max(box.x + box.width + unit * 0.46, W * 0.9);
  const band = `<path d="M${n(x - unit * 0.1)} 0h${n(unit * 0.32)}L${n(x - unit * 0.12)} ${H}h${n(-unit * 0.32)}Z" fill="${palette.accent}" fill-opacity="0.9"/>`;
  const stripes = Array.from(
    { length: 5 },
    (_, i) =>
      `M${n(x + unit * (0.3 + i * 0.07))} 0h${n(unit * 0.02)}L${n(x + unit * (0.3 + i * 0.07) - unit * 0.44)} ${H}h${n(-unit * 0.02)}Z`,
  ).join('');
  const ticker = `<rect x="0" y="${n(H * 0.93)}" width="${W}" height="${n(H * 0.07)}" fill="${palette.accent}" fill-opacity="0.85"/>`;
  return `${band}<path d="${stripes}" fill="#ffffff" fill-opacity="0.12"/>${ticker}`;
}

/** Thin geometric outlines around the focus: a ring, a triangle, a squiggle. */
function rings(s: Scene): string {
  const { palette, unit, focus, random: rnd } = s;
  const r = unit * (0.22 + rnd() * 0.06);
  const tx = focus.x - unit * 0.28;
  const ty = focus.y + unit * 0.25;
  const t = unit * 0.09;
  return `<circle cx="${n(focus.x)}" cy="${n(focus.y)}" r="${n(r)}" fill="none" stroke="#ffffff" stroke-opacity="0.7" stroke-width="${n(unit * 0.006)}"/>
    <polygon points="${n(tx)},${n(ty - t)} ${n(tx + t)},${n(ty + t * 0.8)} ${n(tx - t)},${n(ty + t * 0.8)}" fill="none" stroke="${palette.accent}" stroke-width="${n(unit * 0.008)}" stroke-linejoin="round"/>
    <circle cx="${n(focus.x + r * 0.9)}" cy="${n(focus.y - r * 0.6)}" r="${n(unit * 0.03)}" fill="${palette.accent}"/>`;
}
