// One source in the list: its state, Pause/Resume, the buttons that open its panels (settings, events, and for an
// inbox its confirmation and mail), and Delete, which asks in the page first with the safe answer focused.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { Events } from "./Events.tsx";
import { plural, when } from "./format.tsx";
import { ConfirmationPanel, InboxAddress, MailPanel } from "./Inbox.tsx";
import { SourceSettings } from "./SourceSettings.tsx";
import { typeNames, type Act, type Source, type Status } from "./types.ts";

type Panel = "settings" | "events" | "confirmation" | "mail";
const panelNames: Record<Panel, string> = { settings: "Settings", events: "Events", confirmation: "Confirmation", mail: "Mail" };

export function SourceRow({
  source: s,
  act,
  onStatus,
  reload,
}: {
  source: Source;
  act: Act;
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
      {open.settings && <SourceSettings source={s} onSaved={reload} />}
      {open.events && <Events id={s.id} />}
      {open.confirmation && <ConfirmationPanel id={s.id} />}
      {open.mail && <MailPanel id={s.id} />}
    </li>
  );
}
