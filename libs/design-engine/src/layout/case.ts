/** Whitespace collapsed, control characters dropped, ends trimmed. */
export function cleanTitle(title: string): string {
  return title
    .replace(/\p{Cc}/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

/**
 * Tokens whose case carries meaning and survive a capitals style: links and domains, @handles,
 * #hashtags, and code (snake_case, camelCase, calls, paths, `backticks`).
 */
const KEEPS_CASE = [
  /^[([{"'«“]*(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S+/iu,
  /^[([{"'«“]*[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.(?:com|org|net|io|dev|app|ai|co|gg|tv|me|ly|xyz|edu|gov)(?:\/\S*)?[)\]}"'»”.,!?:;]*$/iu,
  /^[([{"'«“]*[@#][\p{L}\p{N}_]/u,
  /[\p{L}\p{N}]_[\p{L}\p{N}]/u,
  /^[([{"'«“]*\p{Ll}+\p{Lu}/u,
  /[\p{L}\p{N}_]\(\)?/u,
  /`/u,
];

/**
 * The language whose case rules a title follows, from the letters only that language uses: Greek
 * capitals drop their accents, Turkish and Azerbaijani have a dotted capital İ for i.
 */
export function caseLocale(title: string): string | undefined {
  if (/\p{Script=Greek}/u.test(title)) return 'el';
  if (/[ğĞşŞıİ]/u.test(title)) return /[əƏ]/u.test(title) ? 'az' : 'tr';
  if (/[əƏ]/u.test(title)) return 'az';
  return undefined;
}

/** The title as set: cleaned, and in capitals by its language's rules when the style sets capitals. */
export function displayTitle(title: string, uppercase: boolean): string {
  const clean = cleanTitle(title);
  if (!uppercase) return clean;
  const locale = caseLocale(clean);
  return clean
    .split(' ')
    .map((token) => (KEEPS_CASE.some((rule) => rule.test(token)) ? token : token.toLocaleUpperCase(locale)))
    .join(' ');
}
