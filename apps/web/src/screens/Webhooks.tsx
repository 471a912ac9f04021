// Settings: webhooks. Create an endpoint (the signing secret is shown once), send a test, pause, resume or
// re-enable one the server disabled after failures, rotate its secret, delete it, and see its deliveries with
// their status and next attempt.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { ScopeFields, describeScope, scopeOf, useCollections } from "../components/ScopeFields.tsx";
import { ShownOnce } from "../components/ShownOnce.tsx";
import { Alert } from "../components/Alert.tsx";

/** The event types an endpoint can ask for (libs/contracts/events.ts); none ticked means all of them. */
const eventTypes = ["item.created", "item.updated", "item.deleted", "item.tagged", "item.untagged", "item.collection_added", "item.collection_removed", "item.removed_from_scope"];

interface Endpoint {
  id: string;
  name: string;
  url: string;
  eventTypes: string[];
  resourceScope: { tagSlugs?: string[]; collectionId?: string } | null;
  status: "enabled" | "paused" | "disabled";
  consecutiveFailures: number;
}

interface Delivery {
  id: string;
  type: string;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
  createdAt: number;
}

export function Webhooks() {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const collections = useCollections();

  const load = () => api<{ webhooks: Endpoint[] }>("GET", "/api/webhooks").then((r) => setEndpoints(r.webhooks), (e) => setError(String(e.message ?? e)));
  useEffect(() => void load(), []);

  const act = async (run: () => Promise<unknown>) => {
    try {
      setError(null);
      await run();
      await load();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };

  const create = (e: Event) => {
    e.preventDefault();
    const element = e.currentTarget as HTMLFormElement;
    const form = new FormData(element);
    const types = form.getAll("event").map(String);
    void act(async () => {
      const scope = await scopeOf(form);
      const res = await api<{ endpoint: Endpoint; secret: string }>("POST", "/api/webhooks", {
        name: String(form.get("name") ?? ""),
        url: String(form.get("url") ?? ""),
        eventTypes: types.length ? types : ["*"],
        ...(scope ? { resourceScope: scope } : {}),
      });
      setSecret({ name: res.endpoint.name || res.endpoint.url, secret: res.secret });
      element.reset();
    });
  };

  return (
    <main class="settings">
      <h1>Webhooks</h1>
      <p class="meta">Trove tells these addresses about every change, signed with the endpoint's secret.</p>
      {secret && <ShownOnce key={secret.secret} label="New secret" what="signing secret" name={secret.name} value={secret.secret} onDone={() => setSecret(null)} />}
      <form class="create-client" onSubmit={create} aria-label="New webhook">
        <label>
          Name
          <input name="name" maxLength={200} placeholder="optional" />
        </label>
        <label>
          URL
          <input name="url" type="url" required placeholder="https://…" />
        </label>
        <ScopeFields />
        <fieldset class="events-picker">
          <legend>Events (none ticked: all)</legend>
          {eventTypes.map((type) => (
            <label key={type} class="inline">
              <input type="checkbox" name="event" value={type} />
              {type}
            </label>
          ))}
        </fieldset>
        <button type="submit">Create</button>
      </form>
      <Alert text={error} />
      {endpoints && endpoints.length === 0 && <p class="empty">No webhooks.</p>}
      <ul class="clients">
        {(endpoints ?? []).map((w) => (
          <li key={w.id} aria-label={`Webhook ${w.name || w.url}`}>
            <span class="name">{w.name || w.url}</span>
            <span class="meta">
              {w.url} · {w.eventTypes.join(", ")} · {describeScope(w.resourceScope, collections)} · <span class={`state ${w.status}`}>{w.status}</span>
              {w.consecutiveFailures > 0 && ` · ${w.consecutiveFailures} failed in a row`}
            </span>
            <button type="button" class="secondary" onClick={() => void act(() => api("POST", `/api/webhooks/${w.id}/test`))}>
              Send test
            </button>
            {w.status === "enabled" ? (
              <button type="button" class="secondary" onClick={() => void act(() => api("PATCH", `/api/webhooks/${w.id}`, { status: "paused" }))}>
                Pause
              </button>
            ) : (
              <button type="button" class="secondary" onClick={() => void act(() => api("PATCH", `/api/webhooks/${w.id}`, { status: "enabled" }))}>
                {w.status === "disabled" ? "Re-enable" : "Resume"}
              </button>
            )}
            <button
              type="button"
              class="secondary"
              onClick={() =>
                void act(async () => {
                  const res = await api<{ secret: string }>("POST", `/api/webhooks/${w.id}/rotate-secret`, {});
                  setSecret({ name: w.name || w.url, secret: res.secret });
                })
              }
            >
              Rotate secret
            </button>
            <button type="button" class="secondary" onClick={() => setOpen(open === w.id ? null : w.id)} aria-expanded={open === w.id}>
              Deliveries
            </button>
            <button type="button" class="secondary" onClick={() => void act(() => api("DELETE", `/api/webhooks/${w.id}`))}>
              Delete
            </button>
            {open === w.id && <Deliveries id={w.id} />}
          </li>
        ))}
      </ul>
    </main>
  );
}

function Deliveries({ id }: { id: string }) {
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const load = () => api<{ deliveries: Delivery[] }>("GET", `/api/webhooks/${id}/deliveries?limit=50`).then((r) => setDeliveries(r.deliveries));
  useEffect(() => void load(), [id]);
  if (!deliveries) return <p aria-busy="true">Loading…</p>;
  return (
    <section class="deliveries" aria-label="Deliveries">
      <button type="button" class="secondary" onClick={() => void load()}>
        Refresh
      </button>
      {deliveries.length === 0 ? (
        <p class="empty">No deliveries yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Event</th>
              <th>Status</th>
              <th>Attempts</th>
              <th>Last answer</th>
              <th>Next attempt</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.id}>
                <td>{d.type}</td>
                <td>{d.status}</td>
                <td>{d.attempts}</td>
                <td>{d.lastStatusCode ?? d.lastError ?? "–"}</td>
                <td>{d.nextAttemptAt ? new Date(d.nextAttemptAt).toLocaleString() : "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
