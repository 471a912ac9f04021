// @trove/feeds: RSS, RDF, Atom and JSON feeds to one bounded shape. What the main thread imports: the shape and the
// text helpers. The parser (normalise.ts, feedsmith underneath) and its task (task.ts) load in worker threads only.
export { feedLimits, FeedParseError, feedParseTaskName, escapeHtml, textAsHtml, cap as capText, type Feed, type FeedEntry } from "./shape.ts";
