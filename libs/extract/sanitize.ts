// Page text as received may hold what PostgreSQL cannot store: NUL characters (text and jsonb refuse them) and
// lone UTF-16 surrogates (jsonb refuses them). Every page, fetched or captured, passes here before parsing: NULs
// are dropped (as a browser shows them: not at all) and lone surrogates become U+FFFD.

/** The page text with NUL characters removed and lone surrogates replaced by U+FFFD. */
export function cleanPageText(text: string): string {
  return text.replaceAll("\u0000", "").toWellFormed();
}
