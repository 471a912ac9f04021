// Subjects and the filters consumers choose them by: NATS-style (`*` one token, `>` the rest), so a filter means
// the same when the log is read from its table and when it is read from JetStream.
import { subjectMatches } from "@trove/bus";

const token = /^[A-Za-z0-9_-]+$/;

/** Throws unless `subject` is dot-separated plain tokens (it becomes part of a NATS subject). */
export function checkSubject(subject: string): void {
  if (!subject.split(".").every((t) => token.test(t))) throw new Error(`not an event subject: ${JSON.stringify(subject)}`);
}

/** Throws unless `filter` is plain tokens and wildcards, with `>` only at the end. */
export function checkFilter(filter: string): void {
  const tokens = filter.split(".");
  const ok = tokens.every((t, i) => token.test(t) || t === "*" || (t === ">" && i === tokens.length - 1));
  if (!ok) throw new Error(`not an event filter: ${JSON.stringify(filter)}`);
}

/** Throws unless `name` can name a durable consumer (JetStream allows no dots or wildcards in it). */
export function checkConsumerName(name: string): void {
  if (!token.test(name)) throw new Error(`not a consumer name: ${JSON.stringify(name)}`);
}

/** True when the filter selects the subject. */
export const matches = (filter: string, subject: string): boolean => subjectMatches(filter, subject);
