// An email inbox's own parts: its address (with Copy where the page may write the clipboard), the confirmation a
// mail provider sent to it (code and link, shown and never followed), and the mail it received. The two panels
// are read when opened and again on Refresh, since mail arrives while the page is open.
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { onLinkClick } from "../../router.ts";
import { messageOf, when } from "./format.tsx";
import type { Confirmation, SourceMessage, Status } from "./types.ts";
import { Alert } from "../../components/Alert.tsx";

export function InboxAddress({ address }: { address: string }) {
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

export function ConfirmationPanel({ id }: { id: string }) {
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
      <Alert text={error} />
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

export function MailPanel({ id }: { id: string }) {
  const { data, error, refresh } = useRefreshable<{ messages: SourceMessage[] }>(`/api/sources/${id}/messages?limit=50`);
  return (
    <section class="panel" aria-label="Mail">
      <div class="panel-head">
        <h3>Mail</h3>
        <button type="button" class="secondary" onClick={refresh}>
          Refresh
        </button>
      </div>
      <Alert text={error} />
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
