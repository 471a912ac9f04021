/** Hex SHA-256: a message's key when it has no Message-ID, and the stable part of an inbox item's address. */
export const sha256 = (data: string | Uint8Array) => new Bun.CryptoHasher("sha256").update(data).digest("hex");
