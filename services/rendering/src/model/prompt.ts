import { dimensionsOf, type Category, type JobSpec } from '@thumbforge/contracts';

/** A soft hint per category (the spec: it biases the tone and never overrides the references). */
const TONES: Record<Exclude<Category, 'auto'>, string> = {
  'tech-saas': 'clean and modern: cool blues and violets, crisp interface-like shapes, confident',
  'business-finance':
    'trustworthy and premium: deep navy with green or gold accents, charts or rising arrows',
  'education-tutorial': 'friendly and clear: bright colours, high contrast, simple diagrams or step cues',
  'fitness-wellness': 'energetic and healthy: vivid greens and oranges, motion and strength',
  'medical-healthcare': 'calm and credible: clean whites, teal and blue, reassuring',
  'lifestyle-vlog': 'warm and personal: soft natural light, golden or pastel tones',
  'food-cooking': 'appetising: warm reds, oranges and yellows, close-up food textures',
  travel: 'adventurous: wide landscapes, sky blues and sunset oranges',
  gaming: 'intense and punchy: neon accents on dark backgrounds, dramatic glow',
  'entertainment-comedy': 'playful and loud: saturated colours, exaggerated expressions',
  'news-commentary': 'urgent and serious: red, black and white, bold contrast',
  'creative-design': 'artistic and bold: expressive colour, graphic shapes, striking composition',
};

const ASPECTS: Array<[number, string]> = [
  [16 / 9, '16:9'],
  [1.91, '1.91:1'],
  [1, '1:1'],
];

/** Width:height as people name it (16:9, 1.91:1, 1:1). */
export function aspectLabel(width: number, height: number): string {
  const ratio = width / height;
  return ASPECTS.find(([known]) => Math.abs(ratio - known) < 0.02)?.[1] ?? `${ratio.toFixed(2)}:1`;
}

/**
 * The size asked of the images API: the supported size nearest the format's aspect. The result is
 * cropped to the exact output dimensions afterwards, so the prompt keeps what matters in the middle.
 */
export function requestSize(modelName: string, width: number, height: number): string {
  if (width === height || modelName.startsWith('dall-e-2')) return '1024x1024';
  const dalle3 = modelName.startsWith('dall-e-3');
  if (width > height) return dalle3 ? '1792x1024' : '1536x1024';
  return dalle3 ? '1024x1792' : '1024x1536';
}

export interface PromptInputs {
  hasPhoto: boolean;
  referenceCount: number;
  hasLogo: boolean;
}

/** The instruction for the image model: what to draw, for which frame, from which inputs. */
export function buildPrompt(job: JobSpec, inputs: PromptInputs): string {
  const { width, height } = dimensionsOf(job.format, job.model);
  const aspect = aspectLabel(width, height);
  const lines = [
    `Design a ${job.format} thumbnail (${width}x${height}, ${aspect}) that people would click in a feed.`,
    `Show this title in large, bold, high-contrast letters, spelled exactly as given: "${job.title}".`,
    'Keep the title legible when the thumbnail is shown as small as 168x94 pixels: few words per line, no thin strokes.',
    `The image will be cropped to ${aspect} around its centre: keep the title and the main subject well inside that frame.`,
  ];
  const tone =
    job.category === 'auto'
      ? "Choose a visual tone that suits the title's topic."
      : `Tone (a soft hint): ${TONES[job.category]}.`;
  lines.push(inputs.referenceCount > 0 ? `${tone} The style references take precedence over it.` : tone);

  if (inputs.hasPhoto) {
    lines.push(
      'The first input image is the creator: make this person the main subject, face clearly recognisable and ' +
        'unaltered, integrated into the scene with matching light and colour rather than pasted on.',
    );
  }
  if (inputs.referenceCount > 0) {
    const which = inputs.hasPhoto
      ? `The other ${inputs.referenceCount} input image${inputs.referenceCount > 1 ? 's are' : ' is'}`
      : `The ${inputs.referenceCount} input image${inputs.referenceCount > 1 ? 's are' : ' is'}`;
    lines.push(
      `${which} style references. Mirror them at 80 to 100 percent fidelity: the same palette, brightness, ` +
        'placement and scale of the text, typography weight and treatment. Do not copy their text, people or logos.',
    );
  }
  if (inputs.hasLogo && job.logo) {
    lines.push(
      `Leave the ${job.logo.position.replace('-', ' ')} corner free of text and important detail: a logo is placed there afterwards.`,
    );
  }
  if (job.format === 'youtube') {
    lines.push('Keep the bottom right corner free of text: the video duration badge covers it.');
  }
  lines.push('Do not draw any logo, watermark, border or frame.');
  return lines.join('\n');
}
