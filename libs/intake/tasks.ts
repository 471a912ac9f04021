// The sources' reading of untrusted text as worker-pool tasks (libs/host/tasks.ts serves them): a hostile mail,
// feed entry or page costs a worker thread and a deadline, never a service's event loop. Inputs and outputs cross
// threads by structured clone.
import { alternateLink } from "./feed-link.ts";
import { visibleText } from "./html-text.ts";
import { readMail } from "./mail.ts";
import { tagsFor, type TagSettings, type TaggedText } from "./smart-tags.ts";
import { summarize } from "./summary.ts";
import type { EntriesTaskInput, MailTaskInput, MailTaskOutput, PreparedEntry } from "./task-input.ts";

export { entriesTaskName, feedLinkTaskName, mailTaskName } from "./task-input.ts";

/** Parses a received message and reads what every recipient inbox needs of it. */
export async function mailTask(input: MailTaskInput): Promise<MailTaskOutput> {
  const letter = await readMail(input.raw, input.envelopeFrom);
  const summary = input.inboxes.some((i) => i.autoSummarize) ? summarize(letter.html) : null;
  const text: TaggedText = { title: letter.subject, url: letter.url, author: letter.author, html: letter.html };
  return { letter, summary, tags: input.inboxes.map((rules) => tagsFor(text, rules)) };
}

/** Characters of an entry's text shown in a digest when it is too short to need a summary. */
export const excerptChars = 300;

/** The tags, summary and excerpt of a run's new feed entries. */
export function entriesTask(input: EntriesTaskInput): PreparedEntry[] {
  return input.entries.map((e) => ({
    tags: tagsFor(e, input.settings),
    summary: e.summarize ? summarize(e.html) : null,
    excerpt: input.excerpts ? visibleText(e.html, excerptChars) : null,
  }));
}

export function feedLinkTask(input: { html: string; base: string }): string | null {
  return alternateLink(input.html, input.base);
}
