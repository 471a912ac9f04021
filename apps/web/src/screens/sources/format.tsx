// How the Sources screen words things: an error's message, a time, a count, a tag list, and the status line every
// form shows under itself (an alert when it is an error, so a screen reader says it at once).
import { ApiError } from "../../api.ts";
import { Alert } from "../../components/Alert.tsx";
import type { Status } from "./types.ts";

export const messageOf = (err: unknown) => (err instanceof ApiError ? err.message : err instanceof Error ? err.message : String(err));
export const when = (seconds: number) => new Date(seconds * 1000).toLocaleString();
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
export const tagList = (text: string) => text.split(",").map((t) => t.trim()).filter(Boolean);

export function StatusLine({ status }: { status: Status }) {
  if (!status) return null;
  return status.error ? (
    <Alert text={status.text} />
  ) : (
    <p class="status" role="status">
      {status.text}
    </p>
  );
}
