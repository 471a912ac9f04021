// Settings: imports. Bring a library in from another service's export file, watch the job, read what failed.
export function Imports() {
  return (
    <main class="settings">
      <h1>Imports</h1>
    </main>
  );
}
