/**
 * Escapes user text for Pango markup (sharp's `text` input always parses markup): the XML entities,
 * and control characters other than line breaks and tabs, which Pango refuses, replaced by spaces.
 */
export function escapeMarkup(text: string): string {
  return text
    .replace(/\p{Cc}/gu, (c) => (c === '\n' || c === '\t' || c === '\r' ? c : ' '))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
