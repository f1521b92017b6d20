import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Typefaces bundled from npm as TTF files. Text is drawn by Pango with `fontfile`, so the output does
 * not depend on the fonts a machine happens to have installed.
 */
export interface BundledFont {
  /** The family name Pango knows the file by. */
  family: string;
  /** Absolute path of the TTF inside node_modules. */
  file: string;
}

/** Anton: a condensed heavy display face, legible at thumbnail size. */
export const DISPLAY_FONT: BundledFont = {
  family: 'Anton',
  file: require.resolve('@expo-google-fonts/anton/400Regular/Anton_400Regular.ttf'),
};
