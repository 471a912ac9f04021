// `bun run test`: runs `bun test` (extra arguments pass through) and closes with one line `N passed, N failed`.
const proc = Bun.spawn(["bun", "test", ...process.argv.slice(2)], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });

let tail = "";
async function relay(stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    out.write(text);
    tail = (tail + text).slice(-4_000); // bun prints its summary last, on stderr
  }
}

await Promise.all([relay(proc.stdout, process.stdout), relay(proc.stderr, process.stderr)]);
const code = await proc.exited;
const passed = Number(/^\s*(\d+) pass$/m.exec(tail)?.[1] ?? 0);
let failed = Number(/^\s*(\d+) fail$/m.exec(tail)?.[1] ?? 0);
// A crash before the summary is a failure even though no test reported one.
if (code !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(code);
export {};
