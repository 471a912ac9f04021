// The kill suite on the embedded deployment: `bun run trove.ts` as its own process on a PGlite data directory
// (the in-process bus, the mail listener on a free port), under a mixed load from this process. During the load the
// process is killed (SIGKILL) and started again several times, and stopped gracefully (SIGTERM) once while slow
// pages are being captured in the background. Afterwards every acknowledged write is looked for: see load.ts and
// docs/reliability.md.
import { afterAll, expect, test } from "bun:test";
import { openDatabase } from "@trove/db";
import { freePort, spawnEmbedded, startWebhookReceiver, waitForHealth, type EmbeddedProcess } from "@trove/testing";
import { faultEnv, loadSize, runLoad, startSlowPages, verify, verifyDatabase, waitUntilSettled, type Fault } from "./load.ts";

let trove: EmbeddedProcess | undefined;
const receiver = startWebhookReceiver();
const slow = startSlowPages();

afterAll(async () => {
  await trove?.stop();
  receiver.stop();
  slow.stop();
});

test("embedded: SIGKILL and a graceful stop under load lose nothing acknowledged", async () => {
  const smtpPort = await freePort();
  trove = await spawnEmbedded({ ...faultEnv, TROVE_SMTP_PORT: String(smtpPort) });
  const t = trove;
  const exits: string[] = [];
  const kill = (name: string, at: number): Fault => ({
    name,
    at,
    run: async () => {
      exits.push(`SIGKILL: ${await t.kill("SIGKILL")}`);
      await t.restart();
    },
  });
  const faults: Fault[] = [
    kill("SIGKILL 1", 0.12),
    kill("SIGKILL 2", 0.27),
    {
      name: "SIGTERM during background captures",
      at: 0.42,
      run: async () => {
        // A slow page being fetched right now is a capture in the middle of its work.
        const deadline = Date.now() + 60_000;
        while (slow.inFlight === 0 && Date.now() < deadline) await Bun.sleep(10);
        exits.push(`SIGTERM with ${slow.inFlight} captures fetching: ${await t.kill("SIGTERM")}`);
        await t.restart();
      },
    },
    kill("SIGKILL 3", 0.58),
    kill("SIGKILL 4", 0.75),
  ];
  const target = { url: t.url, smtpPort, up: async () => void (await waitForHealth(t.url, "ok", 120_000)) };
  const rec = await runLoad(target, receiver, slow, loadSize, faults);
  expect(rec.faults).toHaveLength(faults.length);

  await waitUntilSettled(t.url);
  const { figures, lost, noteRevisions } = await verify(t.url, rec, receiver, { semantic: true });
  // What only the database shows, read once the process has stopped (PGlite has one process at a time).
  exits.push(`final SIGTERM: ${await t.kill("SIGTERM")}`);
  const database = await openDatabase({ dataDir: t.dataDir });
  try {
    lost.push(...(await verifyDatabase(database.db, noteRevisions)));
  } finally {
    await database.close();
  }
  figures.lost = lost.length;
  console.log(`kill suite, embedded: ${JSON.stringify({ ...figures, exits })}`);
  expect(lost).toEqual([]);
  // A graceful stop is graceful: exit code 0.
  expect(exits.filter((e) => e.startsWith("SIGTERM") || e.startsWith("final")).every((e) => e.endsWith(": 0"))).toBe(true);
}, 600_000);
