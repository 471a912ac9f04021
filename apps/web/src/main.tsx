// The Trove web app: sign in, then the library and the reader, each screen at its own address.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, currentSession, setCsrf, type Session } from "./api.ts";
import { enforceImageMode } from "./preferences.ts";
import { navigate, onLinkClick, useLocation } from "./router.ts";
import { Clients } from "./screens/Clients.tsx";
import { Library } from "./screens/Library.tsx";
import { NoteEditor, NoteList } from "./screens/notes/index.ts";
import { NoteHistory } from "./screens/NoteHistory.tsx";
import { Reader } from "./screens/Reader.tsx";
import { Webhooks } from "./screens/Webhooks.tsx";
import { Sources } from "./screens/sources/index.ts";
import { Exports } from "./screens/Exports.tsx";
import { Imports } from "./screens/Imports.tsx";
import { Account } from "./screens/Account.tsx";
import { Projects } from "./screens/Projects.tsx";
import { SignIn } from "./screens/SignIn.tsx";
import { Shortcuts } from "./components/Shortcuts.tsx";
import "./styles.css";

/** The top bar's links, in order. */
const sections: ReadonlyArray<readonly [string, string]> = [
  ["/notes", "Notes"],
  ["/projects", "Projects"],
  ["/settings/clients", "Connected clients"],
  ["/settings/webhooks", "Webhooks"],
  ["/settings/sources", "Sources"],
  ["/settings/exports", "Exports"],
  ["/settings/imports", "Imports"],
];

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const { path, query } = useLocation();

  useEffect(() => {
    currentSession().then(setSession, () => setSession(null));
  }, []);

  if (session === undefined) return <main aria-busy="true" />;
  if (session === null) {
    return (
      <SignIn
        onSignedIn={(s) => {
          setSession(s);
          if (path === "/sign-in") navigate("/", true);
        }}
      />
    );
  }

  const signOut = async () => {
    await api("DELETE", "/api/session");
    setCsrf(null);
    setSession(null);
    navigate("/", true);
  };
  const item = /^\/items\/([^/]+)$/.exec(path);
  const note = /^\/notes\/([^/]+)$/.exec(path);
  const history = /^\/notes\/([^/]+)\/history$/.exec(path);

  return (
    <>
      <nav class="top" aria-label="Main">
        <a href="/" class="brand" onClick={(e) => onLinkClick(e, "/")}>
          Trove
        </a>
        {sections.map(([href, label]) => (
          <a key={href} href={href} onClick={(e) => onLinkClick(e, href)}>
            {label}
          </a>
        ))}
        <a href="/settings/account" class="who" onClick={(e) => onLinkClick(e, "/settings/account")}>
          {session.account.email}
        </a>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </nav>
      <Shortcuts />
      {item ? (
        <Reader id={decodeURIComponent(item[1]!)} />
      ) : note ? (
        <NoteEditor id={decodeURIComponent(note[1]!)} />
      ) : history ? (
        <NoteHistory id={decodeURIComponent(history[1]!)} />
      ) : path === "/notes" ? (
        <NoteList />
      ) : path === "/projects" ? (
        <Projects query={query} />
      ) : path === "/settings/clients" ? (
        <Clients />
      ) : path === "/settings/webhooks" ? (
        <Webhooks />
      ) : path === "/settings/sources" ? (
        <Sources />
      ) : path === "/settings/exports" ? (
        <Exports />
      ) : path === "/settings/imports" ? (
        <Imports />
      ) : path === "/settings/account" ? (
        <Account />
      ) : (
        <Library query={query} />
      )}
    </>
  );
}

// Before anything renders: the reading preference decides what images this page may load at all.
enforceImageMode();
render(<App />, document.getElementById("app")!);
