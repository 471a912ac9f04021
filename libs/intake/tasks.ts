// The sources' reading of untrusted text as worker-pool tasks (libs/host/tasks.ts serves them): a hostile mail,
// feed entry or page costs a worker thread and a deadline, never a service's event loop. Inputs and outputs cross
// threads by structured clone.
import { alternateLink } from "./feed-link.ts";
import { visibleText } from "./html-text.ts";
import { readMail, type Letter } from "./mail.ts";
import { tagsFor, type TagSettings, type TaggedText } from "./smart-tags.ts";
import { summarize } from "./summary.ts";

/** One inbox's settings that bear on its item: its tag rules and whether it is summarised. */
export interface InboxRules extends TagSettings {
  autoSummarize: boolean;
}

export const mailTaskName = "intake.mail";

export interface MailTaskInput {
  raw: Uint8Array;
  envelopeFrom: string;
  /** The recipient inboxes, in the order their tags are answered. */
  inboxes: InboxRules[];
}

export interface MailTaskOutput {
  letter: Letter;
  /** The summary of the letter's HTML when an inbox asks for one and it needs one. */
  summary: string | null;
  /** Each inbox's tags for the letter. */
  tags: string[][];
}

/** Parses a received message and reads what every recipient inbox needs of it. */
export async function mailTask(input: MailTaskInput): Promise<MailTaskOutput> {
  const letter = await readMail(input.raw, input.envelopeFrom);
  const summary = input.inboxes.some((i) => i.autoSummarize) ? summarize(letter.html) : null;
  const text: TaggedText = { title: letter.subject, url: letter.url, author: letter.author, html: letter.html };
  return { letter, summary, tags: input.inboxes.map((rules) => tagsFor(text, rules)) };
}

export const entriesTaskName = "intake.entries";

export interface EntriesTaskInput {
  entries: (TaggedText & { summarize: boolean })[];
  settings: TagSettings;
  /** Whether each entry needs an excerpt (a digest lists one when there is no summary). */
  excerpts: boolean;
}

export interface PreparedEntry {
  tags: string[];
  summary: string | null;
  excerpt: string | null;
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

export const feedLinkTaskName = "intake.feedLink";

export function feedLinkTask(input: { html: string; base: string }): string | null {
  return alternateLink(input.html, input.base);
}
