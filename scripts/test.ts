// `bun run test`: every test file on the embedded stack (PGlite + the in-process bus); then, when DATABASE_URL and
// NATS_URL are set, the service suites (every file under services/) again on PostgreSQL + NATS. Extra arguments
// pass through to `bun test`. Closes with one line: `N passed, N failed, N skipped`.
// The first run passes this process's environment on, so the files that read DATABASE_URL/NATS_URL themselves
// (the end-to-end suites, the distributed kill suite in test/faults/) run there against PostgreSQL and NATS.
/** Per test: service tests start databases and whole Troves, slow on a loaded machine (not a duration asserted). */
const testTimeoutMs = "60000";

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

async function relay(stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream, keep: (text: string) => void) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    out.write(text);
    keep(text);
  }
}

/** One `bun test` run; its counts come from the summary bun prints last (on stderr). */
async function run(label: string, args: string[], env: Record<string, string | undefined>): Promise<Tally> {
  console.log(`\n=== ${label}: bun test ${args.join(" ")}`.trimEnd());
  // Bun ignores a timeout in bunfig.toml (oven-sh/bun#7789): the room service tests need is given here.
  const proc = Bun.spawn(["bun", "test", "--timeout", testTimeoutMs, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore", env: { ...process.env, ...env } });
  let tail = "";
  const keep = (text: string) => (tail = (tail + text).slice(-4_000));
  await Promise.all([relay(proc.stdout, process.stdout, keep), relay(proc.stderr, process.stderr, keep)]);
  const code = await proc.exited;
  const count = (word: string) => Number(new RegExp(`^\\s*(\\d+) ${word}$`, "m").exec(tail)?.[1] ?? 0);
  const tally = { passed: count("pass"), failed: count("fail"), skipped: count("skip") };
  // A crash before the summary is a failure even though no test reported one.
  if (code !== 0 && tally.failed === 0) tally.failed = 1;
  return tally;
}

const extra = process.argv.slice(2);
const tallies: Tally[] = [await run("embedded (PGlite + in-process bus)", extra, { TROVE_TEST_STACK: "embedded" })];

const { DATABASE_URL, NATS_URL } = process.env;
// A run narrowed to some files reruns only those that are service suites.
const serviceFiles = extra.length === 0 ? ["services/"] : extra.filter((a) => a.startsWith("services/") || a.startsWith("./services/"));
if (DATABASE_URL && NATS_URL && serviceFiles.length > 0) {
  tallies.push(await run("postgres-nats (PostgreSQL + NATS)", serviceFiles, { TROVE_TEST_STACK: "postgres-nats" }));
} else if (!(DATABASE_URL && NATS_URL) && serviceFiles.length > 0) {
  // Each service suite left out counts as one skip, named with its reason.
  const files = [...new Bun.Glob("services/*/test/*.test.ts").scanSync(".")].filter((f) => serviceFiles.some((s) => f.startsWith(s.replace(/^\.\//, ""))));
  for (const f of files) console.log(`SKIPPED ${f} on PostgreSQL + NATS: DATABASE_URL and NATS_URL are not both set`);
  tallies.push({ passed: 0, failed: 0, skipped: files.length });
}

const total = tallies.reduce((a, t) => ({ passed: a.passed + t.passed, failed: a.failed + t.failed, skipped: a.skipped + t.skipped }));
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 ? 1 : 0);
export {};
