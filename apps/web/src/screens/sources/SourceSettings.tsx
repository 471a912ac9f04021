// A source's settings panel: name, poll interval, default tags, full-page fetch, summaries, rollup, and its smart
// tag rules (one row each: a field, the text it must contain, the tags it gives). Read fresh from the API when
// opened, since the list does not carry settings; an inbox has no poll interval or page to fetch.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { messageOf, StatusLine, tagList } from "./format.tsx";
import { ruleFields, type RuleField, type SmartTagRule, type Source, type Status } from "./types.ts";

/** A rule as its row edits it: tags as typed, and a key that stays with the row when others are removed. */
interface RuleRow extends Omit<SmartTagRule, "tags"> {
  key: number;
  tags: string;
}

export function SourceSettings({ source, onSaved }: { source: Source; onSaved: () => void }) {
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

  if (!current) return <div class="panel">{status ? <StatusLine status={status} /> : <p aria-busy="true">Loading…</p>}</div>;
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
          <RuleRowFields
            key={r.key}
            rule={r}
            n={i + 1}
            onChange={(patch) => change(r.key, patch)}
            onRemove={() => setRules((rs) => rs.filter((x) => x.key !== r.key))}
          />
        ))}
        <button type="button" class="secondary" onClick={() => setRules((rs) => [...rs, row()])}>
          Add rule
        </button>
      </fieldset>
      <div class="fields">
        <button type="submit" disabled={saving}>
          Save settings
        </button>
        <StatusLine status={status} />
      </div>
    </form>
  );
}

/** One smart tag rule's row, "Rule n": its field, the text, the tags, and Remove. */
function RuleRowFields({ rule: r, n, onChange, onRemove }: { rule: RuleRow; n: number; onChange: (patch: Partial<RuleRow>) => void; onRemove: () => void }) {
  return (
    <div class="rule" role="group" aria-label={`Rule ${n}`}>
      <label>
        Field
        <select value={r.field} onChange={(e) => onChange({ field: (e.currentTarget as HTMLSelectElement).value as RuleField })}>
          {ruleFields.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
      </label>
      <label class="grow">
        Contains
        <input maxLength={200} value={r.contains} onInput={(e) => onChange({ contains: (e.currentTarget as HTMLInputElement).value })} />
      </label>
      <label class="grow">
        Tags
        <input placeholder="comma separated" value={r.tags} onInput={(e) => onChange({ tags: (e.currentTarget as HTMLInputElement).value })} />
      </label>
      <button type="button" class="secondary" aria-label={`Remove rule ${n}`} onClick={onRemove}>
        Remove
      </button>
    </div>
  );
}
