// URL routing on the History API: every screen has its address, and the back button works.
import { useEffect, useState } from "preact/hooks";

type Listener = () => void;
const listeners = new Set<Listener>();

export function navigate(to: string, replace = false): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  for (const l of listeners) l();
}

addEventListener("popstate", () => {
  for (const l of listeners) l();
});

/** The current path and query; re-renders on navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, tick] = useState(0);
  useEffect(() => {
    const l = () => tick((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

/** A link that navigates inside the app (a plain click), or opens normally (modifier keys, middle click). */
export function onLinkClick(e: MouseEvent, to: string): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(to);
}
