// Keys that work on every screen: j/k move between the entries of a list (library, notes, projects), Enter opens
// the focused one (it is a link), / goes to the screen's search box, ? shows or hides the list of keys.
import { useEffect, useState } from "preact/hooks";

const keys: [string, string][] = [
  ["j / k", "next / previous entry in a list"],
  ["Enter", "open it"],
  ["/", "search"],
  ["?", "show or hide this list"],
];

export function Shortcuts() {
  const [help, setHelp] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (e.ctrlKey || e.metaKey || e.altKey || (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      if (e.key === "?") setHelp((h) => !h);
      else if (e.key === "Escape") setHelp(false);
      else if (e.key === "/") {
        const search = document.querySelector<HTMLInputElement>('main input[type="search"], main input[name="q"]');
        if (!search) return;
        e.preventDefault();
        search.focus();
      } else if (e.key === "j" || e.key === "k") {
        // The first link of each entry: an entry's other links (its site, its tags) are reached with Tab.
        const links = [...document.querySelectorAll<HTMLAnchorElement>("main ul.items > li")].map((li) => li.querySelector("a")).filter((a): a is HTMLAnchorElement => a !== null);
        if (links.length === 0) return;
        const at = links.indexOf(document.activeElement as HTMLAnchorElement);
        const next = e.key === "j" ? Math.min(links.length - 1, at + 1) : Math.max(0, at < 0 ? 0 : at - 1);
        links[next]!.focus();
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
  if (!help) return null;
  return (
    <section class="shortcuts" role="dialog" aria-label="Keyboard shortcuts">
      <h2>Keyboard shortcuts</h2>
      <dl>
        {keys.flatMap(([k, what]) => [<dt key={k}>{k}</dt>, <dd key={`${k}-what`}>{what}</dd>])}
      </dl>
    </section>
  );
}
