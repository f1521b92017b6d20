import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/**
 * A typeface bundled from npm as a TTF file, so the output never depends on the fonts a machine
 * happens to have installed. One weight per family. All are under the SIL Open Font License 1.1.
 */
export interface BundledFont {
  /** Stable identifier, used by styles and caches. */
  id: FontId;
  /** The family name Pango knows the file by. */
  family: string;
  /** Absolute path of the TTF inside node_modules. */
  file: string;
}

const fontFile = (pkg: string, path: string) => require.resolve(`@expo-google-fonts/${pkg}/${path}`);
/** The Black weight of a script's Noto Sans family. */
const notoBlack = (script: string, name: string) => ({
  family: `Noto Sans ${name} Black`,
  file: fontFile(`noto-sans-${script}`, `900Black/NotoSans${name}_900Black.ttf`),
});

const CATALOGUE = {
  // The styles' display faces.
  anton: { family: 'Anton', file: fontFile('anton', '400Regular/Anton_400Regular.ttf') },
  'archivo-black': {
    family: 'Archivo Black',
    file: fontFile('archivo-black', '400Regular/ArchivoBlack_400Regular.ttf'),
  },
  'bebas-neue': { family: 'Bebas Neue', file: fontFile('bebas-neue', '400Regular/BebasNeue_400Regular.ttf') },
  'lilita-one': { family: 'Lilita One', file: fontFile('lilita-one', '400Regular/LilitaOne_400Regular.ttf') },
  'luckiest-guy': {
    family: 'Luckiest Guy',
    file: fontFile('luckiest-guy', '400Regular/LuckiestGuy_400Regular.ttf'),
  },
  'montserrat-black': {
    family: 'Montserrat Black',
    file: fontFile('montserrat', '900Black/Montserrat_900Black.ttf'),
  },
  'oswald-bold': { family: 'Oswald', file: fontFile('oswald', '700Bold/Oswald_700Bold.ttf') },
  'playfair-black': {
    family: 'Playfair Display Black',
    file: fontFile('playfair-display', '900Black/PlayfairDisplay_900Black.ttf'),
  },
  'playfair-black-italic': {
    family: 'Playfair Display Black Italic',
    file: fontFile('playfair-display', '900Black_Italic/PlayfairDisplay_900Black_Italic.ttf'),
  },
  'poppins-extrabold': {
    family: 'Poppins ExtraBold',
    file: fontFile('poppins', '800ExtraBold/Poppins_800ExtraBold.ttf'),
  },
  'rubik-black': { family: 'Rubik Black', file: fontFile('rubik', '900Black/Rubik_900Black.ttf') },
  'russo-one': { family: 'Russo One', file: fontFile('russo-one', '400Regular/RussoOne_400Regular.ttf') },
  // Scripts the display faces lack: Thai, Arabic (with Persian and Urdu), the rest of Latin, Greek and Cyrillic.
  'kanit-extrabold': {
    family: 'Kanit ExtraBold',
    file: fontFile('kanit', '800ExtraBold/Kanit_800ExtraBold.ttf'),
  },
  'noto-kufi-arabic-black': {
    family: 'Noto Kufi Arabic Black',
    file: fontFile('noto-kufi-arabic', '900Black/NotoKufiArabic_900Black.ttf'),
  },
  'noto-sans-black': {
    family: 'Noto Sans Black',
    file: fontFile('noto-sans', '900Black/NotoSans_900Black.ttf'),
  },
  'noto-sans-armenian-black': notoBlack('armenian', 'Armenian'),
  'noto-sans-georgian-black': notoBlack('georgian', 'Georgian'),
  'noto-sans-bengali-black': notoBlack('bengali', 'Bengali'),
  'noto-sans-gurmukhi-black': notoBlack('gurmukhi', 'Gurmukhi'),
  'noto-sans-gujarati-black': notoBlack('gujarati', 'Gujarati'),
  'noto-sans-oriya-black': notoBlack('oriya', 'Oriya'),
  'noto-sans-tamil-black': notoBlack('tamil', 'Tamil'),
  'noto-sans-telugu-black': notoBlack('telugu', 'Telugu'),
  'noto-sans-kannada-black': notoBlack('kannada', 'Kannada'),
  'noto-sans-malayalam-black': notoBlack('malayalam', 'Malayalam'),
  'noto-sans-sinhala-black': notoBlack('sinhala', 'Sinhala'),
  'noto-sans-lao-black': notoBlack('lao', 'Lao'),
  'noto-sans-khmer-black': notoBlack('khmer', 'Khmer'),
  'noto-sans-myanmar-black': notoBlack('myanmar', 'Myanmar'),
  'noto-sans-ethiopic-black': notoBlack('ethiopic', 'Ethiopic'),
  // Chinese, Japanese and Korean display faces: one weight each, a tenth of the size of the Noto CJK
  // families, covering GB 2312 (and most of Big5's common set), JIS X 0208 and KS X 1001.
  'dela-gothic-one': {
    family: 'Dela Gothic One',
    file: fontFile('dela-gothic-one', '400Regular/DelaGothicOne_400Regular.ttf'),
  },
  'zcool-qingke-huangyou': {
    family: 'ZCOOL QingKe HuangYou',
    file: fontFile('zcool-qingke-huangyou', '400Regular/ZCOOLQingKeHuangYou_400Regular.ttf'),
  },
  'black-han-sans': {
    family: 'Black Han Sans',
    file: fontFile('black-han-sans', '400Regular/BlackHanSans_400Regular.ttf'),
  },
  // All 11,172 modern Hangul syllables, for the ones Black Han Sans lacks.
  'nanum-gothic-extrabold': {
    family: 'NanumGothic ExtraBold',
    file: fontFile('nanum-gothic', '800ExtraBold/NanumGothic_800ExtraBold.ttf'),
  },
} as const;

export type FontId = keyof typeof CATALOGUE;

export const FONTS: Readonly<Record<FontId, BundledFont>> = Object.fromEntries(
  Object.entries(CATALOGUE).map(([id, font]) => [id, { id, ...font }]),
) as Record<FontId, BundledFont>;

export const FONT_IDS = Object.keys(CATALOGUE) as FontId[];

/**
 * Colour emoji as SVG images (Twemoji, graphics under CC-BY 4.0). Files are named by the sequence's
 * code points in hex, without U+FE0F unless the sequence has a zero-width joiner.
 */
const EMOJI_DIR = dirname(require.resolve('@twemoji/svg/package.json'));
let emojiNames: Set<string> | undefined;

/** The SVG file drawing an emoji sequence (one grapheme), or null when the set has none. */
export function emojiSvgFile(sequence: string): string | null {
  emojiNames ??= new Set(
    readdirSync(EMOJI_DIR)
      .filter((f) => f.endsWith('.svg'))
      .map((f) => f.slice(0, -4)),
  );
  const codes = [...sequence].map((c) => c.codePointAt(0)!.toString(16));
  const exact = codes.join('-');
  if (emojiNames.has(exact)) return join(EMOJI_DIR, `${exact}.svg`);
  const bare = codes.filter((c) => c !== 'fe0f').join('-');
  if (emojiNames.has(bare)) return join(EMOJI_DIR, `${bare}.svg`);
  return null;
}
