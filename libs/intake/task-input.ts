// What the sources service sends the intake tasks and gets back, apart from the tasks themselves: the main thread
// imports this, never tasks.ts (which loads the mail parser in the worker threads that run it).
import type { Letter } from "./mail.ts";
import type { TagSettings, TaggedText } from "./smart-tags.ts";

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

export const feedLinkTaskName = "intake.feedLink";
