// The "New feed" form: an RSS feed (by its address, or a site's whose feed the server finds), a YouTube channel,
// an X account's articles or an email inbox. Each type's text is turned into the create body the API names.
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { plural } from "./format.tsx";
import { typeNames, type Act, type Created, type SourceType, type Status } from "./types.ts";

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

export function AddSource({ act, onStatus }: { act: Act; onStatus: (s: Status) => void }) {
  const [type, setType] = useState<SourceType>("rss");
  const [given, setGiven] = useState("");

  const add = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const value = given.trim();
    const backfill = form.get("backfill") === "on" ? { backfillMode: "articles", backfillItems: 10 } : { backfillMode: "from_now" };
    onStatus({ text: "Adding…", error: false });
    void act(async () => {
      const create = (body: Record<string, unknown>) => api<Created>("POST", "/api/sources", { type, ...body });
      let res: Created;
      if (type === "rss") {
        // `input` takes a feed's address as it is, and finds the feed of a site's (400 feed_not_found when none).
        res = await create({ input: value, ...backfill });
      } else if (type === "youtube_channel") res = await create({ ...youtubeFields(value), ...backfill });
      else if (type === "x_articles") res = await create({ username: xUsername(value), ...backfill });
      else res = await create({ name: value });
      onStatus(createdStatus(res));
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
  );
}
