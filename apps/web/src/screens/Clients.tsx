// Settings: connected clients. Create one with its access and an optional scope (the key is shown this once,
// with a copy button), see the live ones, revoke one.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { ScopeFields, describeScope, scopeOf, useCollections } from "../components/ScopeFields.tsx";
import { ShownOnce } from "../components/ShownOnce.tsx";
import { Alert } from "../components/Alert.tsx";

interface Client {
  id: string;
  name: string;
  access: "read_write" | "read_only";
  scope: { tagSlugs?: string[]; collectionId?: string } | null;
  createdAt: number;
  lastUsedAt?: number;
}

export function Clients() {
  const [clients, setClients] = useState<Client[] | null>(null);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const collections = useCollections();

  const load = () => api<{ clients: Client[] }>("GET", "/api/connected-clients").then((r) => setClients(r.clients), (e) => setError(String(e.message ?? e)));
  useEffect(() => void load(), []);

  const create = async (e: Event) => {
    e.preventDefault();
    const element = e.currentTarget as HTMLFormElement;
    const form = new FormData(element);
    try {
      const scope = await scopeOf(form);
      const res = await api<{ client: Client; apiKey: string }>("POST", "/api/connected-clients", {
        name: String(form.get("name") ?? ""),
        access: String(form.get("access") ?? "read_write"),
        ...(scope ? { scope } : {}),
      });
      setCreated({ name: res.client.name, key: res.apiKey });
      setError(null);
      element.reset();
      await load();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };

  const revoke = async (client: Client) => {
    await api("POST", "/api/connected-clients/revoke", { id: client.id });
    await load();
  };

  return (
    <main class="settings">
      <h1>Connected clients</h1>
      <p class="meta">Keys for other programs (scripts, AI agents, apps). Each acts for you within its access and scope.</p>
      {created && <ShownOnce key={created.key} label="New key" what="key" name={created.name} value={created.key} onDone={() => setCreated(null)} />}
      <form class="create-client" onSubmit={(e) => void create(e)} aria-label="New connected client">
        <label>
          Name
          <input name="name" required maxLength={200} placeholder="e.g. My reading script" />
        </label>
        <label>
          Access
          <select name="access">
            <option value="read_write">Read and write</option>
            <option value="read_only">Read only</option>
          </select>
        </label>
        <ScopeFields />
        <button type="submit">Create</button>
      </form>
      <Alert text={error} />
      {clients && clients.length === 0 && <p class="empty">No connected clients.</p>}
      {clients && clients.length > 0 && (
        <ul class="clients">
          {clients.map((c) => (
            <li key={c.id}>
              <span class="name">{c.name}</span>
              <span class="meta">
                {c.access === "read_only" ? "read only" : "read and write"}
                {` · ${describeScope(c.scope, collections)}`}
                {c.lastUsedAt ? ` · last used ${new Date(c.lastUsedAt * 1000).toLocaleString()}` : " · never used"}
              </span>
              <button type="button" class="secondary" onClick={() => void revoke(c)} aria-label={`Revoke ${c.name}`}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
