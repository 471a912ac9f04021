// The web app, built with Bun's bundler into memory: one script and one stylesheet whose names carry a hash of
// their content (cached for a year), and the HTML shell that names them (never cached). The gateway builds it
// once, on the first request for it, so a Trove that only serves the API never pays for it.
import { join } from "node:path";

export interface WebAsset {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
  /** The gzipped body, made by the server on first request. */
  gzip?: Uint8Array<ArrayBuffer>;
}

export interface WebApp {
  /** Path under /app/ -> file. */
  assets: Map<string, WebAsset>;
  shell: string;
}

const src = join(import.meta.dir, "src");
export const assetsPrefix = "/app/";

export async function buildWebApp(): Promise<WebApp> {
  const result = await Bun.build({
    entrypoints: [join(src, "main.tsx")],
    target: "browser",
    minify: true,
    naming: { entry: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" },
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) throw new Error(`web app build failed: ${result.logs.map((l) => l.message).join("; ")}`);
  const assets = new Map<string, WebAsset>();
  let script = "";
  let style = "";
  for (const out of result.outputs) {
    const name = out.path.replace(/^.*\//, "");
    const contentType = name.endsWith(".js") ? "text/javascript; charset=utf-8" : name.endsWith(".css") ? "text/css; charset=utf-8" : out.type;
    assets.set(name, { body: new Uint8Array(await out.arrayBuffer()), contentType });
    if (out.kind === "entry-point") script = name;
    if (name.endsWith(".css")) style = name;
  }
  return { assets, shell: shell(script, style) };
}

function shell(script: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Trove</title>
${style ? `<link rel="stylesheet" href="${assetsPrefix}${style}">` : ""}
</head>
<body>
<div id="app"></div>
<script type="module" src="${assetsPrefix}${script}"></script>
</body>
</html>
`;
}
