import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** A typeface bundled from npm as a TTF file (SIL Open Font License), independent of the machine's fonts. */
export interface DisplayFont {
  /** The family name Pango knows the file by. */
  family: string;
  /** Absolute path of the TTF inside node_modules. */
  file: string;
}

/** Anton: a condensed heavy display face, legible at thumbnail size (the test-key placeholder uses it). */
export const DISPLAY_FONT: DisplayFont = {
  family: 'Anton',
  file: require.resolve('@expo-google-fonts/anton/400Regular/Anton_400Regular.ttf'),
};
