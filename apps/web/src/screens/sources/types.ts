// The shapes the Sources screen reads from and sends to /api/sources, in one place so each panel's module agrees
// with the others on what a source, its settings, events and mail are.

export type SourceType = "rss" | "youtube_channel" | "x_articles" | "email_inbox";
export const typeNames: Record<SourceType, string> = {
  rss: "RSS feed",
  youtube_channel: "YouTube channel",
  x_articles: "X articles",
  email_inbox: "Email inbox",
};

export const ruleFields = ["title", "url", "author", "content", "any"] as const;
export type RuleField = (typeof ruleFields)[number];

export interface SmartTagRule {
  field: RuleField;
  contains: string;
  tags: string[];
}

export interface Settings {
  defaultTags: string[];
  smartTagRules: SmartTagRule[];
  expandFullContent: boolean;
  autoSummarize: boolean;
  rollupEnabled: boolean;
}

export interface Source {
  id: string;
  type: SourceType;
  name: string;
  status: "syncing" | "paused";
  pollEveryMin: number;
  lastSuccessAt: number | null;
  lastError: string | null;
  inboxAddress: string | null;
  itemCount: number;
  settings?: Settings;
}

export interface SourceEvent {
  id: string;
  type: string;
  at: number;
  itemsAdded: number;
  message: string | null;
}

export interface SourceMessage {
  id: string;
  from: string;
  subject: string;
  receivedAt: number;
  itemId: string | null;
  status: "added" | "duplicate" | "failed";
  error: string | null;
}

export interface Confirmation {
  code: string | null;
  link: string | null;
  from: string;
  subject: string;
  receivedAt: number;
}

export interface Created {
  source: Source;
  existing?: boolean;
  initialRun?: { status: "ok" | "failed"; itemsAdded: number; error?: string };
}

export interface OpmlResult {
  invalid: { title: string; feedUrl: string; error: string }[];
  counts: { created: number; existing: number; invalid: number };
}

/** A line said to the user: a status, or an error read out as an alert. */
export type Status = { text: string; error: boolean } | null;

/** What the screen runs a change through: errors are shown, and the list is read again after. */
export type Act = (run: () => Promise<unknown>) => Promise<void>;
