// The API reference at /api/docs: Swagger UI from the pinned swagger-ui-dist package and two small files of
// Trove's, every one served from this origin. The page references nothing elsewhere and its
// Content-Security-Policy forbids it, so the reference works offline and runs only code that Trove ships.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Elysia } from "elysia";
import { routeNotFound } from "./errors.ts";
import { encodedBody } from "./static-files.ts";

export const docsPath = "/api/docs";
const assetsPath = `${docsPath}/assets`;

/** The docs page may load from its own origin only (data: images are the icons inlined in swagger-ui.css). */
export const docsContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

interface Asset {
  url: string;
  contentType: string;
  body: Uint8Array<ArrayBuffer>;
  /** Compressed on first request, then kept. */
  gzip?: Uint8Array<ArrayBuffer>;
}

const swaggerDir = dirname(fileURLToPath(import.meta.resolve("swagger-ui-dist/package.json")));
const ownDir = join(import.meta.dir, "docs-ui");

// The URL carries a hash of the content, so a file can be cached for a year and a new Trove is never served an
// old copy.
function asset(dir: string, name: string, contentType: string): Asset {
  const body = new Uint8Array(readFileSync(join(dir, name)));
  const hash = new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 16);
  return { url: `${assetsPath}/${hash}/${name}`, contentType, body };
}

const assets = {
  favicon: asset(swaggerDir, "favicon-32x32.png", "image/png"),
  swaggerCss: asset(swaggerDir, "swagger-ui.css", "text/css; charset=utf-8"),
  troveCss: asset(ownDir, "trove-docs.css", "text/css; charset=utf-8"),
  swaggerJs: asset(swaggerDir, "swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
  troveJs: asset(ownDir, "trove-docs.js", "text/javascript; charset=utf-8"),
};
const byUrl = new Map(Object.values(assets).map((a) => [a.url, a]));

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/png" href="${assets.favicon.url}">
<link rel="stylesheet" href="${assets.swaggerCss.url}">
<link rel="stylesheet" href="${assets.troveCss.url}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${assets.swaggerJs.url}"></script>
<script src="${assets.troveJs.url}"></script>
</body>
</html>
`;
}

/** GET /api/docs and its assets; the gateway's hooks (request id, headers, rate limit) apply as to any route. */
export function docsUi(options: { title: string }) {
  const html = page(options.title);
  const hidden = { detail: { hide: true } };
  return new Elysia({ name: "trove-docs" })
    .get(
      docsPath,
      ({ set }) => {
        set.headers["content-type"] = "text/html; charset=utf-8";
        set.headers["content-security-policy"] = docsContentSecurityPolicy;
        // The page names the current assets, so it is revalidated; the assets themselves never change.
        set.headers["cache-control"] = "no-cache";
        set.headers["referrer-policy"] = "no-referrer";
        return html;
      },
      hidden,
    )
    .get(
      `${assetsPath}/:hash/:name`,
      ({ request, set, path }) => {
        const found = byUrl.get(path);
        if (!found) throw routeNotFound(request.method, path);
        set.headers["content-type"] = found.contentType;
        set.headers["cache-control"] = "public, max-age=31536000, immutable";
        // Scripts and styles shrink to about a quarter gzipped; the PNG is compressed already.
        return encodedBody(found, request, set.headers);
      },
      hidden,
    );
}
