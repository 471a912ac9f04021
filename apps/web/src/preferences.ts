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
}
