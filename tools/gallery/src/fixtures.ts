import type { Category } from '@thumbforge/contracts';
import sharp from 'sharp';

/** A title per category, of the kind creators in that niche write. */
export const SAMPLE_TITLES: Record<Category, string> = {
  auto: 'I Tried Every AI Coding Tool So You Do Not Have To',
  'tech-saas': 'The Future of AI Agents Is Already Here',
  'business-finance': 'How I Made $10,000 in 30 Days With a Boring Business',
  'education-tutorial': 'Learn Python in 10 Minutes: The Complete Beginner Guide',
  'fitness-wellness': 'The Only Ab Workout You Will Ever Need',
  'medical-healthcare': '7 Warning Signs Your Heart Is in Trouble',
  'lifestyle-vlog': 'My Slow Morning Routine in Paris',
  'food-cooking': 'The Best Pizza Dough You Will Ever Make 🍕',
  travel: '48 Hours in Tokyo on a Budget',
  gaming: 'I Beat Minecraft Hardcore Without Dying',
  'entertainment-comedy': 'Try Not To Laugh Challenge: Impossible Edition',
  'news-commentary': 'What the New Election Results Really Mean',
  'creative-design': 'Designing a Logo in 60 Seconds',
};

/**
 * A portrait to stand in for a creator's photo: an illustrated head and shoulders against a warm
 * studio backdrop (no photograph ships with the repository).
 */
export function samplePhoto(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="1200">
    <defs>
      <radialGradient id="backdrop" cx="0.5" cy="0.35" r="0.8">
        <stop offset="0" stop-color="#f2d0a9"/><stop offset="0.55" stop-color="#b87a5b"/><stop offset="1" stop-color="#3b2a2f"/>
      </radialGradient>
      <linearGradient id="skin" x1="0" y1="0" x2="1" y2="1">
        <stop offset="0" stop-color="#f1c29b"/><stop offset="1" stop-color="#c98b66"/>
      </linearGradient>
      <linearGradient id="shirt" x1="0" y1="0" x2="1" y2="1">
        <stop offset="0" stop-color="#2f6fd0"/><stop offset="1" stop-color="#152c57"/>
      </linearGradient>
    </defs>
    <rect width="900" height="1200" fill="url(#backdrop)"/>
    <path d="M90 1200 Q120 820 450 780 Q780 820 810 1200 Z" fill="url(#shirt)"/>
    <rect x="390" y="640" width="120" height="170" rx="40" fill="#c98b66"/>
    <ellipse cx="450" cy="480" rx="200" ry="250" fill="url(#skin)"/>
    <path d="M250 420 Q260 200 450 190 Q650 200 655 420 Q640 300 450 290 Q300 300 250 420 Z" fill="#2b1a14"/>
    <ellipse cx="375" cy="480" rx="24" ry="16" fill="#2b1a14"/><ellipse cx="525" cy="480" rx="24" ry="16" fill="#2b1a14"/>
    <path d="M335 440 Q375 420 410 438" stroke="#2b1a14" stroke-width="10" fill="none" stroke-linecap="round"/>
    <path d="M490 438 Q525 420 565 440" stroke="#2b1a14" stroke-width="10" fill="none" stroke-linecap="round"/>
    <path d="M380 610 Q450 670 520 610" stroke="#8c3b2e" stroke-width="14" fill="#fff" stroke-linecap="round"/>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
}

/** A brand mark: a rounded badge with a bolt, on transparency. */
export function sampleLogo(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="320">
    <rect x="10" y="10" width="300" height="300" rx="70" fill="#111827"/>
    <rect x="26" y="26" width="268" height="268" rx="56" fill="#f97316"/>
    <path d="M180 50 L95 180 H160 L135 270 L228 130 H162 Z" fill="#ffffff"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/**
 * A saved reference set: two thumbnails in a teal and coral look with their text low on the left,
 * drawn as flat shapes (headline bars stand in for the words).
 */
export function sampleReferences(): Promise<Buffer[]> {
  const reference = (
    accent: string,
    bars: number[],
  ) => `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="720">
    <rect width="1280" height="720" fill="#0e3b43"/>
    <path d="M860 0 H1280 V720 H700 Z" fill="${accent}"/>
    <circle cx="1050" cy="300" r="170" fill="#f6d6a8"/>
    ${bars.map((w, i) => `<rect x="70" y="${400 + i * 95}" width="${w}" height="70" rx="8" fill="#fdf6ec"/>`).join('')}
  </svg>`;
  return Promise.all(
    [reference('#ff6f59', [520, 380]), reference('#f25c54', [460, 560])].map((svg) =>
      sharp(Buffer.from(svg)).png().toBuffer(),
    ),
  );
}
