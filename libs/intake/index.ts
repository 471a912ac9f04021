// @trove/intake: what the sources service reads out of untrusted mail, feed entries and pages (a newsletter's web
// version and confirmation, smart tags, extractive summaries, a page's feed link), with HTML read by a tokenizer
// and every scan linear and bounded. The mail parser (mail.ts) and the worker-pool tasks (tasks.ts) are not here:
// they load in the worker threads that run them, so the main thread never holds the mail parser.
export { alternateLink, feedLinkScanChars } from "./feed-link.ts";
export { eachAnchor, visibleText, type Anchor } from "./html-text.ts";
export { sha256 } from "./hash.ts";
export type { Letter } from "./mail.ts";
export { findConfirmation, fold, newsletterLinks, viewOnlineLink, type FoundConfirmation } from "./newsletter.ts";
export { contentMatchChars, tagsFor, uniqueTags, type SmartTagRule, type TagSettings, type TaggedText } from "./smart-tags.ts";
export { sentencesOf, summarize, withSummary } from "./summary.ts";
export {
  entriesTaskName,
  feedLinkTaskName,
  mailTaskName,
  type EntriesTaskInput,
  type InboxRules,
  type MailTaskInput,
  type MailTaskOutput,
  type PreparedEntry,
} from "./task-input.ts";
