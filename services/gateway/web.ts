// The web app at `/`: the HTML shell for every path that is not the API (the app routes in the browser; never
// cached, so a new Trove is picked up at once), and its hashed script and stylesheet under /app/ (cached for a
// year). Built on the first request for it (apps/web/build.ts). Unknown /api/ paths keep their JSON 404.
import { assetsPrefix, buildWebApp, type WebApp } from "@trove/web";
import { AppError } from "@trove/errors";
import { routeNotFound } from "./errors.ts";
import { encodedBody } from "./static-files.ts";
import { withHeaders } from "./headers.ts";

/**
 * The app loads only from its own origin. Images may come from anywhere only because "straight from their site" is
 * a reading mode this server cannot see (a preference of the browser): in the other modes the app adds a <meta>
 * policy of its own images and data: only, which narrows this one. Media, frames, objects and fonts from elsewhere
 * stay refused by default-src 'none' in every mode.
 */
export const appContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https: http:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export function webRoutes() {
  let built: Promise<WebApp> | null = null;
  const app = async (): Promise<WebApp> => {
    built ??= buildWebApp().catch((err) => {
      built = null;
      throw err;
    });
    try {
      return await built;
    } catch {
      throw new AppError("service_unavailable", "the web app could not be built; the API works");
    }
  };

  const shell = async (ctx: { request: Request; path: string; set: { headers: Record<string, unknown> } }) => {
    if (ctx.path === "/api" || ctx.path.startsWith("/api/")) throw routeNotFound(ctx.request.method, ctx.path);
    const { shell: html } = await app();
    return new Response(html, {
      headers: withHeaders(ctx.set.headers, {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-cache",
        "content-security-policy": appContentSecurityPolicy,
        "referrer-policy": "no-referrer",
      }),
    });
  };

  const asset = async (ctx: { request: Request; path: string; set: { headers: Record<string, unknown> } }) => {
    const file = (await app()).assets.get(ctx.path.slice(assetsPrefix.length));
    if (!file) throw routeNotFound(ctx.request.method, ctx.path);
    const extra: Record<string, unknown> = { "content-type": file.contentType, "cache-control": "public, max-age=31536000, immutable" };
    const body = encodedBody(file, ctx.request, extra);
    return new Response(body, { headers: withHeaders(ctx.set.headers, extra as Record<string, string>) });
  };

  return { shell, asset, assetsPattern: `${assetsPrefix}*` };
}
