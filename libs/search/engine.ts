// The search engine seen by services: index a document, remove it, query it. One implementation (PostgreSQL, for
// PGlite and PostgreSQL alike, see postgres.ts); another engine would implement this interface, nothing more.
import type { ExpressionBuilder, SelectQueryBuilder } from "kysely";

/** Field weights, strongest first, as PostgreSQL's setweight names them. */
export type Weight = "A" | "B" | "C" | "D";

export interface SearchField {
  name: string;
  weight: Weight;
  text: string;
}

export interface SearchDoc {
  id: string;
  accountId: string;
  fields: SearchField[];
  /** Fields whose text also answers typo-tolerant (trigram) matches: short ones, like a title or URL. */
  fuzzy: { name: string; text: string }[];
}

/** Narrows a query to the ids a subquery selects (the caller's own filters and key scope). */
export type Restriction = SelectQueryBuilder<any, any, { id: string }>;

export interface SearchQuery {
  accountId: string;
  /** The user's text: websearch syntax (quoted phrases, OR, -exclusion), prefix matching on the last word. */
  q: string;
  restrict?: Restriction;
  /**
   * Only documents whose owner has one of these statuses (an item's status, mirrored in the index table and kept
   * exact by its triggers): the common filter without the restriction subquery. Needs `statusColumn`.
   */
  statuses?: string[];
  limit: number;
  offset: number;
}

export interface SearchHit {
  id: string;
  score: number;
  /**
   * Where it matched: the strongest weight class whose fields alone match (the caller picks the field of that
   * weight with `matchedField`), or the name of the fuzzy field that matched by trigram; null when only the
   * fields together match.
   */
  matched: { weight: Weight } | { fuzzy: string } | null;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Matches across all pages. */
  count: number;
}

export interface SearchEngine {
  /** Inserts or replaces documents (idempotent). */
  index(docs: SearchDoc[]): Promise<void>;
  remove(accountId: string, ids: string[]): Promise<void>;
  /** True when no document of any account is indexed (a fresh index, to be filled from the database). */
  isEmpty(): Promise<boolean>;
  query(q: SearchQuery): Promise<SearchResult>;
  /** Ids of the account's documents matching `q` (no ranking), for a list's `q` filter. */
  matching(accountId: string, q: string): (eb: ExpressionBuilder<any, any>) => SelectQueryBuilder<any, any, { id: string }>;
}
