// Reading preferences of this browser (localStorage): they change what this device loads, not the library.

/** How the reader shows an article's images from other sites. */
export type ImageMode = "proxy" | "direct" | "none";

export const imageModes: ReadonlyArray<{ value: ImageMode; label: string }> = [
  { value: "proxy", label: "Through Trove: the image's site never sees who reads" },
  { value: "direct", label: "From their site, as you scroll to them" },
  { value: "none", label: "Not at all (the description is shown)" },
];

const key = "trove.images";

export function imageMode(): ImageMode {
  const stored = globalThis.localStorage?.getItem(key);
  return imageModes.some((m) => m.value === stored) ? (stored as ImageMode) : "proxy";
}

export function setImageMode(mode: ImageMode): void {
  localStorage.setItem(key, mode);
  enforceImageMode();
}

/** Marks the policy this app added, to tell whether the page still holds it. */
const policyMark = "data-trove-images";

/**
 * Lets the browser hold the mode too: unless images may come from their sites, the page gets a policy allowing
 * images from its own origin and data: only, so an address the sanitiser missed is refused, not fetched. A policy
 * in a <meta> only narrows the server's, and stays until the page is loaded again.
 */
export function enforceImageMode(): void {
  if (imageMode() === "direct" || document.head.querySelector(`meta[${policyMark}]`)) return;
  const meta = document.createElement("meta");
  meta.httpEquiv = "Content-Security-Policy";
  meta.content = "img-src 'self' data:";
  meta.setAttribute(policyMark, "");
  document.head.append(meta);
}

/** False after a switch to images from their sites on a page that already holds the narrower policy. */
export function imagePolicyFits(): boolean {
  return imageMode() !== "direct" || !document.head.querySelector(`meta[${policyMark}]`);
}
