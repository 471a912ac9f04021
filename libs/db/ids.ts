// Ids are opaque strings: UUIDv7, so they sort by creation time and index well.
export const newId = (): string => Bun.randomUUIDv7();
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
export const nowMillis = (): number => Date.now();
