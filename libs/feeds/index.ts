// @trove/feeds: RSS, RDF, Atom and JSON feeds to one bounded shape (feedsmith underneath), and the worker task.
export { parseFeedText, feedLimits, FeedParseError, escapeHtml, textAsHtml, cap as capText, type Feed, type FeedEntry } from "./normalise.ts";
export { feedParseTask, feedParseTaskName } from "./task.ts";
