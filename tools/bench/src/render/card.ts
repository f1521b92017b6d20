import type { Dimensions } from '@thumbforge/contracts';

/** What the equivalent card shows: the same as a designed thumbnail, drawn the plain way. */
export interface CardContent {
  canvas: Dimensions;
  title: string;
  /** Data URLs, so neither engine fetches anything. */
  photo?: string;
  logo?: { src: string; width: number; height: number };
}

const FROM = '#1e1b4b';
const TO = '#7c3aed';

function layout({ canvas, photo }: CardContent) {
  const { width: W, height: H } = canvas;
  const photoWidth = photo ? Math.round(W * 0.42) : 0;
  return {
    W,
    H,
    photoWidth,
    pad: Math.round(Math.min(W, H) * 0.07),
    fontSize: Math.round(H * (photo ? 0.11 : 0.13)),
    margin: Math.round(Math.min(W, H) * 0.035),
  };
}

/**
 * The card as a satori element tree (the React element shape, without React): a diagonal gradient,
 * the title in the display face with a shadow, the photo on the right, the logo in the top-right corner.
 */
export function cardElement(content: CardContent): unknown {
  const { W, H, photoWidth, pad, fontSize, margin } = layout(content);
  const children: unknown[] = [
    {
      type: 'div',
      props: {
        style: {
          display: 'flex',
          flexShrink: 0,
          boxSizing: 'border-box',
          width: W - photoWidth,
          height: H,
          padding: pad,
          alignItems: 'center',
          fontFamily: 'Display',
          fontSize,
          lineHeight: 1.05,
          color: '#ffffff',
          textTransform: 'uppercase',
          textShadow: '0 6px 18px rgba(0,0,0,0.55)',
        },
        children: content.title,
      },
    },
  ];
  if (content.photo) {
    children.push({
      type: 'img',
      props: {
        src: content.photo,
        width: photoWidth,
        height: H,
        style: { objectFit: 'cover', flexShrink: 0 },
      },
    });
  }
  if (content.logo) {
    const { src, width, height } = content.logo;
    children.push({
      type: 'img',
      props: { src, width, height, style: { position: 'absolute', top: margin, right: margin } },
    });
  }
  return {
    type: 'div',
    props: {
      style: {
        display: 'flex',
        width: W,
        height: H,
        backgroundImage: `linear-gradient(135deg, ${FROM}, ${TO})`,
      },
      children,
    },
  };
}

/** The same card as an HTML page for a browser, the font embedded as a data URL. */
export function cardHtml(content: CardContent, fontDataUrl: string): string {
  const { W, H, photoWidth, pad, fontSize, margin } = layout(content);
  const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const photo = content.photo
    ? `<img src="${content.photo}" style="width:${photoWidth}px;height:${H}px;object-fit:cover;flex-shrink:0">`
    : '';
  const logo = content.logo
    ? `<img src="${content.logo.src}" style="position:absolute;top:${margin}px;right:${margin}px;width:${content.logo.width}px;height:${content.logo.height}px">`
    : '';
  return `<!doctype html><html><head><style>
@font-face{font-family:Display;src:url(${fontDataUrl}) format('truetype')}
html,body{margin:0;width:${W}px;height:${H}px;overflow:hidden}
.card{position:relative;display:flex;width:${W}px;height:${H}px;background:linear-gradient(135deg,${FROM},${TO})}
.title{display:flex;flex-shrink:0;box-sizing:border-box;align-items:center;width:${W - photoWidth}px;height:${H}px;padding:${pad}px;
font-family:Display;font-size:${fontSize}px;line-height:1.05;color:#fff;text-transform:uppercase;
text-shadow:0 6px 18px rgba(0,0,0,.55)}
</style></head><body><div class="card"><div class="title">${escape(content.title)}</div>${photo}${logo}</div></body></html>`;
}
