// What the search index is built from: each item's title, URL, notes, tags and the start of its content.
import { sql, type Kysely } from "kysely";

export interface SearchSource {
  id: string;
  account_id: string;
  title: string;
  url: string;
  notes: string;
  tags: { name: string; slug: string }[];
  content_head: string | null;
}

const columns = (contentChars: number) =>
  [
    "id",
    "account_id",
    "title",
    "url",
    "notes",
    "tags",
    sql<string | null>`left(content_markdown, ${contentChars})`.as("content_head"),
  ] as const;

export class SearchDocsRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** The account's items among `ids`, with at most `contentChars` characters of Markdown each. */
  async sources(accountId: string, ids: string[], contentChars: number): Promise<SearchSource[]> {
    if (ids.length === 0) return [];
    return (await this.db
      .selectFrom("items.items")
      .select(columns(contentChars))
      .where("account_id", "=", accountId)
      .where(sql<boolean>`id = any(${ids}::text[])`)
      .execute()) as SearchSource[];
  }

  /** Every account's items in id order, a batch after `afterId` (the reindex walks the whole table). */
  async allAfter(afterId: string, batch: number, contentChars: number): Promise<SearchSource[]> {
    return (await this.db
      .selectFrom("items.items")
      .select(columns(contentChars))
      .where("id", ">", afterId)
      .orderBy("id")
      .limit(batch)
      .execute()) as SearchSource[];
  }

  async isEmpty(): Promise<boolean> {
    const row = await this.db.selectFrom("items.search_docs").select("id").limit(1).executeTakeFirst();
    return row === undefined;
  }
}
