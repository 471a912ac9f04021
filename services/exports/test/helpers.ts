// Shared steps of the export and import tests: a small library with everything an export carries, and waiting for
// a job to finish. Everything goes through the public HTTP API.
import { expect } from "bun:test";
import { articleHtml, eventually, type TestTrove } from "@trove/testing";

export interface Library {
  /** Item ids by name. */
  ids: { rich: string; formula: string; archived: string; plain: string };
  collectionId: string;
}

const save = async (trove: TestTrove, url: string, key?: string) => {
  const res = await trove.api("/api/ingest", { method: "POST", json: { url, html: articleHtml }, key });
  expect(res.status).toBe(200);
  return (await res.json()).id as string;
};

const update = async (trove: TestTrove, id: string, body: unknown, key?: string) => {
  const res = await trove.api(`/api/items/${id}`, { method: "POST", json: body, key });
  expect(res.status).toBe(200);
};

/**
 * Four items: one tagged, in a collection, highlighted and annotated; one flagged with a formula-like title; one
 * archived with a unicode title; one with nothing but its page.
 */
export async function seedLibrary(trove: TestTrove, key?: string, host = "library.example.test"): Promise<Library> {
  const collection = await trove.api("/api/collections", { method: "POST", json: { name: "Deep Reads" }, key });
  const collectionId = (await collection.json()).collection.id as string;
  const ids = { rich: await save(trove, `https://${host}/rich`, key), formula: "", archived: "", plain: "" };
  await update(trove, ids.rich, { tags: ["Reading", "日本語"], collectionId, notes: "My own note, with a line\nand another." }, key);
  for (const text of ["Parsers turn text", "structure"]) {
    const res = await trove.api(`/api/items/${ids.rich}/highlights`, { method: "POST", json: { text, note: `why ${text}` }, key });
    expect(res.status).toBe(200);
  }
  ids.formula = await save(trove, `https://${host}/formula`, key);
  await update(trove, ids.formula, { title: "=HYPERLINK(\"http://evil.test\",\"click\")", status: "flagged", tags: ["Reading"] }, key);
  ids.archived = await save(trove, `https://${host}/archived`, key);
  await update(trove, ids.archived, { title: "Ünïcödé / 标题 \u{1F600} ../..", archived: true }, key);
  ids.plain = await save(trove, `https://${host}/plain`, key);
  return { ids, collectionId };
}

/** A job's end; the deadline is a failure's, far past any run's length on a busy machine. */
export async function waitForJob(trove: TestTrove, kind: "exports" | "imports", id: string, key?: string, ms = 240_000): Promise<any> {
  let job: any;
  await eventually(async () => {
    const res = await trove.api(`/api/${kind}/${id}`, { key });
    const body = await res.json();
    job = kind === "exports" ? body.export : body.import;
    return job.status === "completed" || job.status === "failed";
  }, ms);
  return job;
}

/** Starts an export, waits for it and downloads the file. */
export async function exportFile(trove: TestTrove, body: Record<string, unknown>, key?: string) {
  const start = await trove.api("/api/exports", { method: "POST", json: body, key });
  expect(start.status).toBe(200);
  const job = await waitForJob(trove, "exports", (await start.json()).export.id, key);
  expect(job.status).toBe("completed");
  const download = await trove.api(`/api/exports/${job.id}/download`, { key });
  expect(download.status).toBe(200);
  return { job, response: download, bytes: new Uint8Array(await download.arrayBuffer()) };
}
