import type { JobSpec } from '@thumbforge/contracts';
import { exampleJobSpec } from '@thumbforge/contracts/testing';
import sharp from 'sharp';

/** A job as the rendering service receives it, with the fields the bench varies. */
export function benchJob(overrides: Partial<JobSpec>): JobSpec {
  return exampleJobSpec({
    jobId: 'job_bench',
    generationId: 'gen_bench',
    accountId: 'acc_bench',
    title: 'I Tried Every AI Coding Tool So You Do Not Have To',
    category: 'tech-saas',
    requestedAt: '2026-04-27T14:30:00Z',
    ...overrides,
  });
}

/**
 * A portrait as an upload would be: a 900x1200 JPEG with soft light, a figure and fine grain, so
 * decoding, cropping and encoding it cost what a real photo costs.
 */
export function benchPhoto(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="1200">
    <defs>
      <radialGradient id="light" cx="0.35" cy="0.3" r="0.9">
        <stop offset="0" stop-color="#f4d9b8"/><stop offset="0.5" stop-color="#8a6a58"/>
        <stop offset="1" stop-color="#2b2530"/>
      </radialGradient>
      <linearGradient id="shirt" x1="0" y1="0" x2="1" y2="1">
        <stop offset="0" stop-color="#2d5fa8"/><stop offset="1" stop-color="#13294d"/>
      </linearGradient>
      <filter id="grain"><feTurbulence type="fractalNoise" baseFrequency="0.9" numOctaves="2" seed="7"/>
        <feColorMatrix type="saturate" values="0"/><feComponentTransfer><feFuncA type="linear" slope="0.25"/>
        </feComponentTransfer></filter>
    </defs>
    <rect width="900" height="1200" fill="url(#light)"/>
    <ellipse cx="450" cy="470" rx="190" ry="240" fill="#e0b08c"/>
    <ellipse cx="380" cy="440" rx="22" ry="14" fill="#3a2a22"/><ellipse cx="520" cy="440" rx="22" ry="14" fill="#3a2a22"/>
    <path d="M380 590 Q450 640 520 590" stroke="#8c4a3c" stroke-width="12" fill="none"/>
    <path d="M260 330 Q450 150 640 330 L640 260 Q450 120 260 260 Z" fill="#3b2418"/>
    <path d="M120 1200 Q150 800 450 760 Q750 800 780 1200 Z" fill="url(#shirt)"/>
    <rect width="900" height="1200" filter="url(#grain)"/>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 88 }).toBuffer();
}

/** A logo with transparency: a rounded badge with a mark and a word. */
export function benchLogo(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="160">
    <rect x="4" y="4" width="472" height="152" rx="32" fill="#111827"/>
    <circle cx="84" cy="80" r="48" fill="#f59e0b"/><path d="M60 80 L84 56 L108 80 L84 104 Z" fill="#111827"/>
    <rect x="160" y="52" width="280" height="20" rx="10" fill="#f9fafb"/>
    <rect x="160" y="88" width="200" height="20" rx="10" fill="#9ca3af"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/**
 * Titles of similar length, one per round: the engine is measured on a title it has not just drawn
 * (only the account's photo and logo repeat, as they do in service), and every contender draws the same.
 */
export const TITLES = [
  'I Tried Every AI Coding Tool So You Do Not Have To',
  'The 10 Minute Morning Routine That Changed My Life',
  'Why Nobody Talks About This Simple Budget Trick',
  'We Built a Tiny House in 30 Days From Scratch',
  'Testing Viral Kitchen Gadgets So You Can Skip Them',
  'How I Learned Japanese in One Year Without Classes',
  'The Hardest Boss Fight I Have Ever Played, Explained',
  'Five Design Mistakes Everyone Makes on Day One',
] as const;
