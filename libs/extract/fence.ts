// Recognising fenced code blocks line by line (CommonMark rules, simplified): the steps that rewrite or cut
// Markdown must never act inside code.

export interface Fence {
  char: string;
  length: number;
}

/** The fence a line opens, if it is an opening code fence (up to any indentation, as inside list items). */
export function fenceOpening(line: string): Fence | null {
  const m = /^\s*(`{3,}|~{3,})/.exec(line);
  if (!m?.[1]) return null;
  // A backtick fence's info string may not contain backticks; otherwise this is inline code.
  if (m[1][0] === "`" && line.slice(m[0].length).includes("`")) return null;
  return { char: m[1][0] ?? "`", length: m[1].length };
}

/** Whether `line` closes `fence`: the same character, at least as many, nothing else. */
export function closesFence(line: string, fence: Fence): boolean {
  const m = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
  return !!m?.[1] && m[1][0] === fence.char && m[1].length >= fence.length;
}

/** Applies `fn` to every line outside fenced code; fenced lines are kept as they are. */
export function mapProseLines(markdown: string, fn: (line: string) => string): string[] {
  const out: string[] = [];
  let open: Fence | null = null;
  for (const line of markdown.split("\n")) {
    if (open) {
      if (closesFence(line, open)) open = null;
      out.push(line);
      continue;
    }
    open = fenceOpening(line);
    out.push(open ? line : fn(line));
  }
  return out;
}
