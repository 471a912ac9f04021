// A failure the screen reports: an alert, so a screen reader says it at once; nothing when there is none.
export function Alert({ text }: { text: string | null | undefined }) {
  if (!text) return null;
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}
