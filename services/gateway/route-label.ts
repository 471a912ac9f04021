// The route a request is counted under in metrics: the template it was routed to (`/api/items/:id`), never the
// raw path, so the label's values are the routes there are. A request refused before routing (rate limited, an
// unknown API version, a body too large) is matched against the contract's routes; one that matches none is
// `unmatched`.

export type RouteLabel = (method: string, path: string, routed: string | undefined) => string;

export function routeLabeler(routes: { method: string; path: string }[]): RouteLabel {
  const patterns = routes.map((r) => ({
    method: r.method,
    path: r.path,
    re: new RegExp(`^${r.path.split("/").map((part) => (part.startsWith(":") ? "[^/]+" : escape(part))).join("/")}/?$`),
  }));
  return (method, path, routed) => {
    if (routed) return routed;
    return patterns.find((p) => p.method === method && p.re.test(path))?.path ?? "unmatched";
  };
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
