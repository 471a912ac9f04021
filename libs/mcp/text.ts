// Byte-bounded text. Kept here rather than taken from @trove/reader: this package depends on nothing of Trove's
// (only the MCP SDK and zod), so `trove-mcp` installs and runs alone, next to the MCP client, far from the server.

/** The longest start of `text` within `maxBytes` UTF-8 bytes, cut on a character boundary. */
export function cutBytes(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return { text, truncated: false };
  let end = maxBytes;
  // Back off continuation bytes (10xxxxxx) to the start of the character the limit falls in.
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return { text: buf.subarray(0, end).toString("utf8"), truncated: true };
}
