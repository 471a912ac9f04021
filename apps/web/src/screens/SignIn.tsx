// Sign in with email and password (or a personal key): POST /api/session sets the cookie.
import { useState } from "preact/hooks";
import { api, ApiError, setCsrf, type Session } from "../api.ts";
import { Alert } from "../components/Alert.tsx";

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const signedIn = await api<Session>("POST", "/api/session", { email, password });
      setCsrf(signedIn.csrfToken);
      onSignedIn(signedIn);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? "The email and password do not match an account." : err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <h1>Trove</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label>
          Email
          <input type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input type="password" name="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        <Alert text={error} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
