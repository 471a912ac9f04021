// Settings: sources. Add an RSS feed (by its URL, or a site's where the feed is found), a YouTube channel, an X
// account's articles or an email inbox; see each source's state; pause, resume or delete it; change its settings
// and smart tag rules; read its events, and an inbox's mail and the confirmation a provider sent to it; follow the
// feeds of an OPML file, and download every feed as OPML.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { onLinkClick } from "../router.ts";
import "./Sources.css";

type SourceType = "rss" | "youtube_channel" | "x_articles" | "email_inbox";
const typeNames: Record<SourceType, string> = {
  rss: "RSS feed",
  youtube_channel: "YouTube channel",
  x_articles: "X articles",
  email_inbox: "Email inbox",
};

const ruleFields = ["title", "url", "author", "content", "any"] as const;
type RuleField = (typeof ruleFields)[number];

interface SmartTagRule {
  field: RuleField;
  contains: string;
  tags: string[];
}

interface Settings {
  defaultTags: string[];
  smartTagRules: SmartTagRule[];
  expandFullContent: boolean;
  autoSummarize: boolean;
  rollupEnabled: boolean;
}

interface Source {
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

interface SourceEvent {
  id: string;
  type: string;
  at: number;
  itemsAdded: number;
  message: string | null;
}

interface SourceMessage {
  id: string;
  from: string;
  subject: string;
  receivedAt: number;
  itemId: string | null;
  status: "added" | "duplicate" | "failed";
  error: string | null;
}

interface Confirmation {
  code: string | null;
  link: string | null;
  from: string;
  subject: string;
  receivedAt: number;
}

interface Created {
  source: Source;
  existing?: boolean;
  initialRun?: { status: "ok" | "failed"; itemsAdded: number; error?: string };
}

interface OpmlResult {
  invalid: { title: string; feedUrl: string; error: string }[];
  counts: { created: number; existing: number; invalid: number };
}

type Status = { text: string; error: boolean } | null;

const messageOf = (err: unknown) => (err instanceof ApiError ? err.message : err instanceof Error ? err.message : String(err));
const when = (seconds: number) => new Date(seconds * 1000).toLocaleString();
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const tagList = (text: string) => text.split(",").map((t) => t.trim()).filter(Boolean);
/** The server's own limit (opmlLimits.maxBytes); checked here so a huge file is not read into the page. */
const maxOpmlBytes = 1024 * 1024;

/** A channel URL, an @handle or a UC… id, as the create body names each. */
function youtubeFields(given: string): Record<string, string> {
  if (given.startsWith("@")) return { handle: given };
  if (/^UC[A-Za-z0-9_-]{22}$/.test(given)) return { channelId: given };
  return { channel: /^https?:\/\//i.test(given) ? given : `https://${given}` };
}

/** An X username from "@name", "name" or an x.com / twitter.com profile URL. */
function xUsername(given: string): string {
  const m = /^(?:https?:\/\/)?(?:www\.)?(?:x|twitter)\.com\/@?([^/?#]+)/i.exec(given);
  return (m?.[1] ?? given).replace(/^@/, "");
}

function createdStatus(res: Created): { text: string; error: boolean } {
  const s = res.source;
  if (res.existing) return { text: `${s.name} was already a source.`, error: false };
  if (s.type === "email_inbox") return { text: `Added ${s.name}. Its address is ${s.inboxAddress}.`, error: false };
  const run = res.initialRun;
  if (run?.status === "failed") return { text: `Added ${s.name}, but its first read failed: ${run.error ?? "unknown error"}`, error: true };
  return { text: run ? `Added ${s.name}. ${plural(run.itemsAdded, "item")} added.` : `Added ${s.name}.`, error: false };
}

const inputLabels: Record<SourceType, { label: string; placeholder: string; url?: boolean }> = {
  rss: { label: "Feed or site", placeholder: "https://example.com/feed.xml", url: true },
  youtube_channel: { label: "Channel", placeholder: "channel URL, @handle or UC… id" },
  x_articles: { label: "X username", placeholder: "@name" },
  email_inbox: { label: "Name", placeholder: "e.g. Newsletters" },
};

export function Sources() {
  const [sources, setSources] = useState<Source[] | null>(null);
  const [status, setStatus] = useState<Status>(null);
  const [type, setType] = useState<SourceType>("rss");
  const [given, setGiven] = useState("");

  const load = () =>
    api<{ sources: Source[] }>("GET", "/api/sources?limit=1000").then(
      (r) => setSources(r.sources),
      (err) => setStatus({ text: messageOf(err), error: true }),
    );
  useEffect(() => void load(), []);

  const act = async (run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (err) {
      setStatus({ text: messageOf(err), error: true });
    }
    await load();
  };

  const add = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const value = given.trim();
    const backfill = form.get("backfill") === "on" ? { backfillMode: "articles", backfillItems: 10 } : { backfillMode: "from_now" };
    setStatus({ text: "Adding…", error: false });
    void act(async () => {
      const create = (body: Record<string, unknown>) => api<Created>("POST", "/api/sources", { type, ...body });
      let res: Created;
      if (type === "rss") {
        // `input` takes a feed's address as it is, and finds the feed of a site's (400 feed_not_found when none).
        res = await create({ input: value, ...backfill });
      } else if (type === "youtube_channel") res = await create({ ...youtubeFields(value), ...backfill });
      else if (type === "x_articles") res = await create({ username: xUsername(value), ...backfill });
      else res = await create({ name: value });
      setStatus(createdStatus(res));
      setGiven("");
    });
  };

  const field = inputLabels[type];
  const givenInput = {
    name: "given",
    required: true,
    maxLength: type === "email_inbox" ? 200 : 2048,
    placeholder: field.placeholder,
    value: given,
    onInput: (e: Event) => setGiven((e.currentTarget as HTMLInputElement).value),
  };
  return (
    <main class="settings sources">
      <h1>Sources</h1>
      <p class="meta">
        Feeds, channels and inboxes Trove reads for you; what they publish is saved to the library.{" "}
        <a href="/api/sources/export-opml">Download all feeds as OPML</a>
      </p>
      <form class="create-client" onSubmit={add} aria-label="New feed">
        <label>
          Type
          <select
            name="type"
            value={type}
            onChange={(e) => {
              setType((e.currentTarget as HTMLSelectElement).value as SourceType);
              setGiven("");
            }}
          >
            {(Object.keys(typeNames) as SourceType[]).map((t) => (
              <option key={t} value={t}>
                {typeNames[t]}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          {field.label}
          {field.url ? <input type="url" {...givenInput} /> : <input type="text" {...givenInput} />}
        </label>
        {type !== "email_inbox" && (
          <label class="inline">
            <input type="checkbox" name="backfill" defaultChecked /> with its 10 newest entries
          </label>
        )}
        <button type="submit">Add</button>
      </form>
      {status &&
        (status.error ? (
          <p class="error" role="alert">
            {status.text}
          </p>
        ) : (
          <p class="status" role="status">
            {status.text}
          </p>
        ))}
      <OpmlImport onImported={() => void load()} />
      <h2>Your sources</h2>
      {!sources && <p aria-busy="true">Loading…</p>}
      {sources && sources.length === 0 && <p class="empty">No sources.</p>}
      <ul class="clients">
        {(sources ?? []).map((s) => (
          <SourceRow key={s.id} source={s} act={act} onStatus={setStatus} reload={() => void load()} />
        ))}
      </ul>
    </main>
  );
}

type Panel = "settings" | "events" | "confirmation" | "mail";
const panelNames: Record<Panel, string> = { settings: "Settings", events: "Events", confirmation: "Confirmation", mail: "Mail" };

function SourceRow({
  source: s,
  act,
  onStatus,
  reload,
}: {
  source: Source;
  act: (run: () => Promise<unknown>) => Promise<void>;
  onStatus: (s: Status) => void;
  reload: () => void;
}) {
  const [open, setOpen] = useState<Record<Panel, boolean>>({ settings: false, events: false, confirmation: false, mail: false });
  const [deleting, setDeleting] = useState(false);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const inbox = s.type === "email_inbox";
  const panels: Panel[] = inbox ? ["settings", "events", "confirmation", "mail"] : ["settings", "events"];

  // The safe choice has the focus when the question appears.
  useEffect(() => {
    if (deleting) cancelButton.current?.focus();
  }, [deleting]);
  const cancelDelete = () => {
    setDeleting(false);
    deleteButton.current?.focus();
  };

  return (
    <li aria-label={`Source ${s.name}`}>
      <span class="name">{s.name}</span>
      <span class="meta">
        {typeNames[s.type] ?? s.type} · <span class={`state ${s.status}`}>{s.status}</span> · {plural(s.itemCount, "item")}
        {s.lastSuccessAt ? ` · last read ${when(s.lastSuccessAt)}` : ""}
        {s.lastError && <span class="last-error"> · last error: {s.lastError}</span>}
      </span>
      <button type="button" class="secondary" onClick={() => void act(() => api("POST", `/api/sources/${s.id}/${s.status === "paused" ? "resume" : "pause"}`, {}))}>
        {s.status === "paused" ? "Resume" : "Pause"}
      </button>
      {panels.map((p) => (
        <button key={p} type="button" class="secondary" aria-expanded={open[p]} onClick={() => setOpen((o) => ({ ...o, [p]: !o[p] }))}>
          {panelNames[p]}
        </button>
      ))}
      <button type="button" class="secondary" ref={deleteButton} aria-expanded={deleting} onClick={() => setDeleting(!deleting)}>
        Delete
      </button>
      {inbox && s.inboxAddress && <InboxAddress address={s.inboxAddress} />}
      {deleting && (
        <div
          class="panel confirm-delete"
          role="group"
          aria-label={`Delete ${s.name}?`}
          onKeyDown={(e) => {
            if (e.key === "Escape") cancelDelete();
          }}
        >
          <span>Delete {s.name}? Nothing more is added from it; the items it added stay in the library.</span>
          <button
            type="button"
            class="danger"
            onClick={() =>
              void act(async () => {
                await api("POST", `/api/sources/${s.id}/delete`, {});
                onStatus({ text: `Deleted ${s.name}.`, error: false });
              })
            }
          >
            Yes, delete
          </button>
          <button type="button" class="secondary" ref={cancelButton} onClick={cancelDelete}>
            Cancel
          </button>
        </div>
      )}
      {open.settings && <SettingsForm source={s} onSaved={reload} />}
      {open.events && <Events id={s.id} />}
      {open.confirmation && <ConfirmationPanel id={s.id} />}
      {open.mail && <MailPanel id={s.id} />}
    </li>
  );
}

function InboxAddress({ address }: { address: string }) {
  const [copied, setCopied] = useState<Status>(null);
  // Only in a secure context is there a clipboard to write to.
  const canCopy = typeof navigator !== "undefined" && "clipboard" in navigator && !!navigator.clipboard;
  const copy = () =>
    navigator.clipboard.writeText(address).then(
      () => setCopied({ text: "Copied.", error: false }),
      () => setCopied({ text: "Could not copy; select the address instead.", error: true }),
    );
  return (
    <p class="inbox-address">
      Send mail to <code>{address}</code>
      {canCopy && (
        <button type="button" class="secondary" onClick={() => void copy()}>
          Copy address
        </button>
      )}
      {copied && (
        <span class={copied.error ? "error" : "status"} role={copied.error ? "alert" : "status"}>
          {copied.text}
        </span>
      )}
    </p>
  );
}

interface RuleRow extends Omit<SmartTagRule, "tags"> {
  key: number;
  tags: string;
}

function SettingsForm({ source, onSaved }: { source: Source; onSaved: () => void }) {
  const [current, setCurrent] = useState<Source | null>(null);
  const [rules, setRules] = useState<RuleRow[]>([]);
  const [status, setStatus] = useState<Status>(null);
  const [saving, setSaving] = useState(false);
  const nextKey = useRef(0);
  const inbox = source.type === "email_inbox";
  const row = (r?: SmartTagRule): RuleRow => ({ key: nextKey.current++, field: r?.field ?? "any", contains: r?.contains ?? "", tags: r?.tags.join(", ") ?? "" });

  useEffect(() => {
    api<{ source: Source }>("GET", `/api/sources/${source.id}?include=settings`).then(
      (r) => {
        setCurrent(r.source);
        setRules((r.source.settings?.smartTagRules ?? []).map((rule) => row(rule)));
      },
      (err) => setStatus({ text: messageOf(err), error: true }),
    );
  }, [source.id]);

  const change = (key: number, patch: Partial<RuleRow>) => setRules((rs) => rs.map((r) => (r.key === key ? { ...r, ...patch } : r)));

  const save = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const smartTagRules: SmartTagRule[] = [];
    for (const [i, r] of rules.entries()) {
      const contains = r.contains.trim();
      const tags = tagList(r.tags);
      // A row left empty is no rule; a half-filled one is a mistake worth saying.
      if (contains === "" && tags.length === 0) continue;
      if (contains === "") return setStatus({ text: `Rule ${i + 1}: say what the ${r.field} must contain.`, error: true });
      if (tags.length === 0) return setStatus({ text: `Rule ${i + 1}: give at least one tag.`, error: true });
      smartTagRules.push({ field: r.field, contains, tags });
    }
    const body: Record<string, unknown> = {
      name: String(form.get("name") ?? "").trim(),
      defaultTags: tagList(String(form.get("defaultTags") ?? "")),
      smartTagRules,
      autoSummarize: form.get("autoSummarize") === "on",
      rollupEnabled: form.get("rollupEnabled") === "on",
    };
    // The API refuses these for an inbox: it is not polled, and mail has no page to fetch.
    if (!inbox) {
      body.pollEveryMin = Number(form.get("pollEveryMin"));
      body.expandFullContent = form.get("expandFullContent") === "on";
    }
    setSaving(true);
    try {
      const r = await api<{ source: Source }>("POST", `/api/sources/${source.id}/settings`, body);
      setCurrent(r.source);
      setStatus({ text: "Saved.", error: false });
      onSaved();
    } catch (err) {
      setStatus({ text: messageOf(err), error: true });
    } finally {
      setSaving(false);
    }
  };

  const statusLine =
    status &&
    (status.error ? (
      <p class="error" role="alert">
        {status.text}
      </p>
    ) : (
      <p class="status" role="status">
        {status.text}
      </p>
    ));
  if (!current) return <div class="panel">{statusLine ?? <p aria-busy="true">Loading…</p>}</div>;
  const settings = current.settings;
  return (
    <form class="panel source-settings" aria-label={`Settings of ${source.name}`} onSubmit={(e) => void save(e)}>
      <div class="fields">
        <label class="grow">
          Name
          <input name="name" required maxLength={200} defaultValue={current.name} />
        </label>
        {!inbox && (
          <label>
            Minutes between polls
            <input name="pollEveryMin" type="number" required min={1} max={43200} step={1} defaultValue={String(current.pollEveryMin)} />
          </label>
        )}
        <label class="grow">
          Default tags
          <input name="defaultTags" placeholder="comma separated" defaultValue={settings?.defaultTags.join(", ") ?? ""} />
        </label>
      </div>
      <div class="fields">
        {!inbox && (
          <label class="inline">
            <input type="checkbox" name="expandFullContent" defaultChecked={settings?.expandFullContent} /> Fetch each entry's full page
          </label>
        )}
        <label class="inline">
          <input type="checkbox" name="autoSummarize" defaultChecked={settings?.autoSummarize} /> Add a summary to new items
        </label>
        <label class="inline">
          <input type="checkbox" name="rollupEnabled" defaultChecked={settings?.rollupEnabled} /> Rollup: one digest item per run
        </label>
      </div>
      <fieldset class="rules">
        <legend>Smart tag rules</legend>
        <p class="meta">A new item whose field contains the text (case and accents ignored) gets the rule's tags.</p>
        {rules.length === 0 && <p class="empty">No rules.</p>}
        {rules.map((r, i) => (
          <div class="rule" role="group" aria-label={`Rule ${i + 1}`} key={r.key}>
            <label>
              Field
              <select value={r.field} onChange={(e) => change(r.key, { field: (e.currentTarget as HTMLSelectElement).value as RuleField })}>
                {ruleFields.map((f) => (
                  <option key={f} value={f}>
                    {f}
                  </option>
                ))}
              </select>
            </label>
            <label class="grow">
              Contains
              <input maxLength={200} value={r.contains} onInput={(e) => change(r.key, { contains: (e.currentTarget as HTMLInputElement).value })} />
            </label>
            <label class="grow">
              Tags
              <input placeholder="comma separated" value={r.tags} onInput={(e) => change(r.key, { tags: (e.currentTarget as HTMLInputElement).value })} />
            </label>
            <button type="button" class="secondary" aria-label={`Remove rule ${i + 1}`} onClick={() => setRules((rs) => rs.filter((x) => x.key !== r.key))}>
              Remove
            </button>
          </div>
        ))}
        <button type="button" class="secondary" onClick={() => setRules((rs) => [...rs, row()])}>
          Add rule
        </button>
      </fieldset>
      <div class="fields">
        <button type="submit" disabled={saving}>
          Save settings
        </button>
        {statusLine}
      </div>
    </form>
  );
}

function Events({ id }: { id: string }) {
  const [events, setEvents] = useState<SourceEvent[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<{ events: SourceEvent[] }>("GET", `/api/sources/${id}/events?limit=20`).then(
      (r) => setEvents(r.events),
      (err) => setError(messageOf(err)),
    );
  }, [id]);
  if (error) return <p class="error panel" role="alert">{error}</p>;
  if (!events) return <p aria-busy="true">Loading…</p>;
  return (
    <ul class="events panel" aria-label="Events">
      {events.length === 0 && <li>No events yet.</li>}
      {events.map((e) => (
        <li key={e.id}>
          <time>{when(e.at)}</time> {e.type}
          {e.itemsAdded > 0 ? ` (${plural(e.itemsAdded, "item")} added)` : ""}
          {e.message ? `: ${e.message}` : ""}
        </li>
      ))}
    </ul>
  );
}

/** Fetches `path` now and on Refresh; what the panels of an inbox show. */
function useRefreshable<T>(path: string): { data: T | null; error: string | null; refresh: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => {
    api<T>("GET", path).then(
      (r) => {
        setData(r);
        setError(null);
      },
      (err) => setError(messageOf(err)),
    );
  };
  useEffect(refresh, [path]);
  return { data, error, refresh };
}

function ConfirmationPanel({ id }: { id: string }) {
  const { data, error, refresh } = useRefreshable<{ confirmation: Confirmation | null }>(`/api/sources/${id}/confirmation`);
  const c = data?.confirmation;
  return (
    <section class="panel" aria-label="Confirmation">
      <div class="panel-head">
        <h3>Confirmation</h3>
        <button type="button" class="secondary" onClick={refresh}>
          Refresh
        </button>
      </div>
      <p class="meta">The code or link a mail provider sent to check you own this address (e.g. Gmail's forwarding confirmation).</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!data && !error && <p aria-busy="true">Loading…</p>}
      {data && !c && <p class="empty">No confirmation mail yet.</p>}
      {c && (
        <dl>
          {c.code && (
            <>
              <dt>Code</dt>
              <dd>
                <code>{c.code}</code>
              </dd>
            </>
          )}
          {c.link && (
            <>
              <dt>Link</dt>
              <dd>
                {/* Only http(s): the link comes from a stranger's mail. */}
                {/^https?:\/\//i.test(c.link) ? (
                  <a href={c.link} target="_blank" rel="noopener noreferrer">
                    {c.link}
                  </a>
                ) : (
                  <code>{c.link}</code>
                )}
              </dd>
            </>
          )}
          <dt>From</dt>
          <dd>{c.from}</dd>
          <dt>Subject</dt>
          <dd>{c.subject}</dd>
          <dt>Received</dt>
          <dd>{when(c.receivedAt)}</dd>
        </dl>
      )}
    </section>
  );
}

function MailPanel({ id }: { id: string }) {
  const { data, error, refresh } = useRefreshable<{ messages: SourceMessage[] }>(`/api/sources/${id}/messages?limit=50`);
  return (
    <section class="panel" aria-label="Mail">
      <div class="panel-head">
        <h3>Mail</h3>
        <button type="button" class="secondary" onClick={refresh}>
          Refresh
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!data && !error && <p aria-busy="true">Loading…</p>}
      {data && data.messages.length === 0 && <p class="empty">No mail yet.</p>}
      {data && data.messages.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>From</th>
              <th>Subject</th>
              <th>Received</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {data.messages.map((m) => (
              <tr key={m.id}>
                <td>{m.from}</td>
                <td>
                  {m.itemId ? (
                    <a href={`/items/${m.itemId}`} onClick={(e) => onLinkClick(e, `/items/${m.itemId}`)}>
                      {m.subject}
                    </a>
                  ) : (
                    m.subject
                  )}
                </td>
                <td>{when(m.receivedAt)}</td>
                <td class={m.status === "failed" ? "error" : undefined}>
                  {m.status}
                  {m.error ? `: ${m.error}` : ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function OpmlImport({ onImported }: { onImported: () => void }) {
  const [result, setResult] = useState<OpmlResult | null>(null);
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const element = e.currentTarget as HTMLFormElement;
    const file = (element.elements.namedItem("opml") as HTMLInputElement).files?.[0];
    setResult(null);
    if (!file) return setStatus({ text: "Choose an OPML file first.", error: true });
    if (file.size > maxOpmlBytes) return setStatus({ text: "The file is larger than 1 MB; split it.", error: true });
    setBusy(true);
    setStatus({ text: "Importing…", error: false });
    try {
      const r = await api<OpmlResult>("POST", "/api/sources/import-opml", { opml: await file.text() });
      setResult(r);
      setStatus(null);
      element.reset();
      onImported();
    } catch (err) {
      setStatus({ text: messageOf(err), error: true });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-label="Import OPML">
      <h2>Import OPML</h2>
      <form class="create-client" aria-label="Import feeds from OPML" onSubmit={(e) => void submit(e)}>
        <label>
          OPML file
          <input name="opml" type="file" required accept=".opml,.xml,text/x-opml,application/xml,text/xml" />
        </label>
        <button type="submit" disabled={busy}>
          Import
        </button>
      </form>
      {status &&
        (status.error ? (
          <p class="error" role="alert">
            {status.text}
          </p>
        ) : (
          <p class="status" role="status">
            {status.text}
          </p>
        ))}
      {result && (
        <div class="import-result">
          <p role="status">
            Imported: {result.counts.created} created, {result.counts.existing} already followed, {result.counts.invalid} invalid.
          </p>
          {result.invalid.length > 0 && (
            <ul aria-label="Invalid outlines">
              {result.invalid.map((o, i) => (
                <li key={i}>
                  {o.title || o.feedUrl} ({o.feedUrl}): <span class="error">{o.error}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
