import type { ScriptContext } from '../layout/line-breaks.js';
import type { FontId } from './catalogue.js';

/**
 * The fonts for each script that the styles' display faces lack, best first. A run of one script is
 * set in the first font that covers all of it, so a word never mixes two faces of the same script.
 */
const SCRIPT_FONTS: Array<[RegExp, FontId[]]> = [
  [/[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}]/u, ['noto-kufi-arabic-black', 'rubik-black']],
  [/\p{Script=Hebrew}/u, ['rubik-black']],
  [/\p{Script=Armenian}/u, ['noto-sans-armenian-black']],
  [/\p{Script=Georgian}/u, ['noto-sans-georgian-black']],
  [/\p{Script=Devanagari}/u, ['poppins-extrabold']],
  [/\p{Script=Bengali}/u, ['noto-sans-bengali-black']],
  [/\p{Script=Gurmukhi}/u, ['noto-sans-gurmukhi-black']],
  [/\p{Script=Gujarati}/u, ['noto-sans-gujarati-black']],
  [/\p{Script=Oriya}/u, ['noto-sans-oriya-black']],
  [/\p{Script=Tamil}/u, ['noto-sans-tamil-black']],
  [/\p{Script=Telugu}/u, ['noto-sans-telugu-black']],
  [/\p{Script=Kannada}/u, ['noto-sans-kannada-black']],
  [/\p{Script=Malayalam}/u, ['noto-sans-malayalam-black']],
  [/\p{Script=Sinhala}/u, ['noto-sans-sinhala-black']],
  [/\p{Script=Thai}/u, ['kanit-extrabold']],
  [/\p{Script=Lao}/u, ['noto-sans-lao-black']],
  [/\p{Script=Khmer}/u, ['noto-sans-khmer-black']],
  [/\p{Script=Myanmar}/u, ['noto-sans-myanmar-black']],
  [/\p{Script=Ethiopic}/u, ['noto-sans-ethiopic-black']],
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, ['dela-gothic-one', 'zcool-qingke-huangyou']],
  [/\p{Script=Hangul}/u, ['black-han-sans', 'nanum-gothic-extrabold']],
];
const HAN = /\p{Script=Han}/u;
const JAPANESE_HAN: FontId[] = ['dela-gothic-one', 'zcool-qingke-huangyou'];
const CHINESE_HAN: FontId[] = ['zcool-qingke-huangyou', 'dela-gothic-one'];

/** After a style's own face, the faces with the widest Latin, Greek and Cyrillic. */
export const LATIN_FALLBACK: FontId[] = ['montserrat-black', 'noto-sans-black', 'rubik-black'];

/** Every face, in the order tried for a character no earlier choice covers. */
export const LAST_RESORT: FontId[] = [
  'noto-sans-black',
  'rubik-black',
  ...new Set(SCRIPT_FONTS.flatMap(([, fonts]) => fonts)),
  ...CHINESE_HAN,
];

/** A grapheme's script class: a key into the fallback table, or 'latin' for the styles' own faces. */
export type ScriptClass = number | 'han' | 'latin';

export function scriptClassOf(cluster: string): ScriptClass {
  const index = SCRIPT_FONTS.findIndex(([test]) => test.test(cluster));
  if (index >= 0) return index;
  return HAN.test(cluster) ? 'han' : 'latin';
}

/** The fonts to try, in order, for a run of one script class. */
export function fontsFor(script: ScriptClass, primary: FontId, context: ScriptContext): FontId[] {
  if (script === 'latin') return [primary, ...LATIN_FALLBACK];
  // Japanese kanji from the Japanese face, Chinese (and Korean hanja) from the Chinese one.
  if (script === 'han') return context === 'japanese' ? JAPANESE_HAN : CHINESE_HAN;
  return SCRIPT_FONTS[script]![1];
}
