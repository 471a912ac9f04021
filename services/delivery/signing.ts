// Standard Webhooks signing: secrets are `whsec_` + base64 of 24 random bytes (as Svix issues them), and each
// delivery is signed by every secret that currently signs (two during a rotation overlap), space-separated.
import { Webhook } from "standardwebhooks";

export const secretPrefix = "whsec_";

/** A fresh signing secret. */
export function newSecret(): string {
  return secretPrefix + Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64");
}

// One HMAC key object per secret; the few secrets in use recur on every delivery.
const signers = new Map<string, Webhook>();
const signerOf = (secret: string): Webhook => {
  let w = signers.get(secret);
  if (!w) {
    if (signers.size > 10_000) signers.clear();
    signers.set(secret, (w = new Webhook(secret)));
  }
  return w;
};

/** The secrets that sign at `now`: the current one, and the previous one while its overlap lasts. */
export function signingSecrets(e: { secret: string; previous_secret: string | null; previous_secret_expires_at: number | null }, now: number): string[] {
  return e.previous_secret && e.previous_secret_expires_at !== null && e.previous_secret_expires_at > now ? [e.secret, e.previous_secret] : [e.secret];
}

/** The three Standard Webhooks headers for one attempt: id, timestamp (Unix seconds) and signatures. */
export function signatureHeaders(secrets: string[], msgId: string, at: Date, body: string): Record<string, string> {
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((s) => signerOf(s).sign(msgId, at, body)).join(" "),
  };
}
