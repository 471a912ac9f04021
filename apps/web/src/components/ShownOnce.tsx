// A credential the server shows this once (a connected client's key, a webhook's signing secret): the value, a
// copy button, and Done, which forgets it.
import { useState } from "preact/hooks";

export function ShownOnce({ label, what, name, value, onDone }: { label: string; what: string; name: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <section class="new-key" role="status" aria-label={label}>
      <p>
        The {what} for <strong>{name}</strong>. It is shown this once: copy it now.
      </p>
      <code>{value}</code>
      <div class="actions">
        <button type="button" onClick={() => void navigator.clipboard.writeText(value).then(() => setCopied(true), () => setCopied(false))}>
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}
