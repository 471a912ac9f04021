// Settings: the account. Plan and usage, the password, the signed-in sessions (end any of them), and this
// browser's reading preferences.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { imageMode, imageModes, setImageMode, type ImageMode } from "../preferences.ts";

interface Me {
  plan: string;
  limitScope: string;
  linkLimit: number;
  linkCount: number;
  linkCountMonth?: number;
}

interface SessionRow {
  id: string;
  createdAt: number;
  lastUsedAt: number | null;
  userAgent: string | null;
  address: string | null;
  current: boolean;
}

export function Account() {
  const [me, setMe] = useState<Me | null>(null);
  const [sessions, setSessions] = useState<SessionRow[] | null>(null);
  const [status, setStatus] = useState<{ text: string; error: boolean } | null>(null);
  const loadSessions = () => api<{ sessions: SessionRow[] }>("GET", "/api/sessions").then((r) => setSessions(r.sessions));
  useEffect(() => {
    void api<Me>("GET", "/api/me").then(setMe);
    void loadSessions();
  }, []);

  const setPassword = async (e: Event) => {
    e.preventDefault();
    const element = e.currentTarget as HTMLFormElement;
    const form = new FormData(element);
    const password = String(form.get("password") ?? "");
    // Left empty only by an account that has no password yet (it signed in with its key).
    const currentPassword = String(form.get("currentPassword") ?? "");
    try {
      await api("POST", "/api/account/password", currentPassword ? { password, currentPassword } : { password });
      setStatus({ text: "Password changed; your other sessions were signed out.", error: false });
      element.reset();
      await loadSessions();
    } catch (err) {
      setStatus({ text: passwordError(err), error: true });
    }
  };

  return (
    <main class="settings">
      <h1>Account</h1>
      {me && (
        <section aria-label="Plan and usage">
          <h2>Plan and usage</h2>
          <p>
            Plan <strong>{me.plan}</strong>: {me.linkCount} of {me.linkLimit} saved links ({me.limitScope === "billing_cycle" ? "this billing cycle" : "in all"}).
          </p>
          <progress max={me.linkLimit} value={Math.min(me.linkCount, me.linkLimit)} aria-label="Links used" />
        </section>
      )}
      <section aria-label="Password">
        <h2>Password</h2>
        <form class="create-client" onSubmit={(e) => void setPassword(e)} aria-label="Change password">
          <label>
            Current password
            <input type="password" name="currentPassword" autocomplete="current-password" />
          </label>
          <label>
            New password
            <input type="password" name="password" autocomplete="new-password" minLength={10} required />
          </label>
          <button type="submit">Change</button>
        </form>
        {status && (
          <p class={status.error ? "error" : "status"} role="status">
            {status.text}
          </p>
        )}
      </section>
      <section aria-label="Sessions">
        <h2>Signed-in sessions</h2>
        <ul class="clients">
          {(sessions ?? []).map((s) => (
            <li key={s.id}>
              <span class="name">{s.userAgent ?? "Unknown browser"}</span>
              <span class="meta">
                {s.current ? "this session · " : ""}signed in {new Date(s.createdAt * 1000).toLocaleString()}
                {s.address ? ` from ${s.address}` : ""}
              </span>
              {!s.current && (
                <button type="button" class="secondary" onClick={() => void api("POST", "/api/sessions/revoke", { id: s.id }).then(loadSessions)}>
                  End session
                </button>
              )}
            </li>
          ))}
        </ul>
      </section>
      <Reading />
    </main>
  );
}

/** Preferences kept by this browser: they decide what this device loads. */
function Reading() {
  const [mode, setMode] = useState<ImageMode>(imageMode());
  return (
    <section aria-label="Reading">
      <h2>Reading on this device</h2>
      <fieldset class="radios">
        <legend>Images from other sites</legend>
        {imageModes.map((m) => (
          <label key={m.value} class="inline">
            <input
              type="radio"
              name="images"
              value={m.value}
              checked={mode === m.value}
              onChange={() => {
                setImageMode(m.value);
                setMode(m.value);
              }}
            />
            {m.label}
          </label>
        ))}
      </fieldset>
    </section>
  );
}

/** What went wrong changing the password, in the screen's words where the API's code says which field. */
function passwordError(err: unknown): string {
  if (!(err instanceof ApiError)) return String(err);
  if (err.code === "forbidden") return "The current password is not right.";
  if (err.code === "validation_failed" && (err.body.fields as Record<string, unknown> | undefined)?.currentPassword) return "Enter your current password.";
  return err.message;
}
