// The bus over TLS: nats-server runs deploy/nats/nats-tls.conf (nats.conf's users and permissions, TLS required,
// client certificates verified) with a CA and certificates made here with openssl. Trove's connection signs in
// with NATS_TLS_CA/NATS_TLS_CERT/NATS_TLS_KEY and its user; a plaintext client, one without a certificate and one
// that does not trust the CA get nowhere. Then `bun run start` runs over it (when DATABASE_URL is set).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { NatsAccess } from "@trove/bus";
import { NatsBus } from "@trove/bus/nats.ts";
import { connectNats } from "@trove/bus/connect.ts";
import { natsUsers, passwordVariable, type NatsUser } from "@trove/cluster";
import { createLogger } from "@trove/log";
import {
  aliceKey,
  articleHtml,
  createScratchDatabase,
  dropScratchDatabase,
  eventually,
  freePort,
  natsServerBinary,
  processEnv,
  repoRoot,
  startNatsServer,
  waitForHealth,
  type NatsServer,
} from "@trove/testing";

const passwords = Object.fromEntries(natsUsers.map((u) => [u, `pw-${u}-${crypto.randomUUID()}`])) as Record<NatsUser, string>;

/** Runs openssl; throws with its output when it fails. */
function openssl(args: string[], cwd: string) {
  const r = Bun.spawnSync(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args.join(" ")}: ${r.stderr.toString()}`);
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by the CA; and a CA that signed nothing. */
function makeCertificates(dir: string) {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  for (const ca of ["ca", "other-ca"]) openssl(["req", "-x509", ...ec, "-keyout", `${ca}.key`, "-out", `${ca}.pem`, "-days", "2", "-subj", `/CN=Trove test ${ca}`], dir);
  for (const [name, ext] of [
    ["server", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"],
    ["client", "extendedKeyUsage=clientAuth\n"],
  ] as const) {
    openssl(["req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=trove-${name}`], dir);
    Bun.write(join(dir, `${name}.ext`), ext);
    openssl(["x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", `${name}.pem`, "-days", "2", "-extfile", `${name}.ext`], dir);
  }
  return {
    ca: join(dir, "ca.pem"),
    otherCa: join(dir, "other-ca.pem"),
    serverCert: join(dir, "server.pem"),
    serverKey: join(dir, "server.key"),
    clientCert: join(dir, "client.pem"),
    clientKey: join(dir, "client.key"),
  };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected a refusal, but it was allowed");
}

/** What a plaintext client hears after INFO when it sends CONNECT and PING without starting TLS. */
function plaintextAnswer(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let heard = "";
    const socket = tcpConnect(port, "127.0.0.1");
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      if (heard === "") socket.write(`CONNECT {"user":"gateway","pass":"${passwords.gateway}"}\r\nPING\r\n`);
      heard += chunk;
    });
    socket.on("close", () => resolve(heard));
    socket.on("error", (err) => (heard ? resolve(heard) : reject(err)));
  });
}

const binary = natsServerBinary();
const hasOpenssl = Bun.which("openssl") !== null;
const skip = !binary ? "no nats-server binary (set TROVE_NATS_SERVER or install nats-server)" : !hasOpenssl ? "no openssl to make certificates" : undefined;

if (skip) {
  console.log(`SKIPPED bus-over-TLS suite: ${skip}`);
  describe.skip(`NATS over TLS with deploy/nats/nats-tls.conf (skipped: ${skip})`, () => test("every bus-over-TLS test", () => {}));
} else {
  describe("NATS over TLS with deploy/nats/nats-tls.conf", () => {
    const dir = mkdtempSync(join(tmpdir(), "trove-nats-tls-"));
    const certs = makeCertificates(dir);
    let server: NatsServer;
    let tlsUrl = "";
    let port = 0;
    const serverLog: string[] = [];
    const tls = { caFile: certs.ca, certFile: certs.clientCert, keyFile: certs.clientKey };
    const as = (user: NatsUser, extra: Partial<NatsAccess> = {}): NatsAccess => ({ user, password: passwords[user], tls, ...extra });

    beforeAll(async () => {
      server = await startNatsServer({
        onLine: (l) => void serverLog.push(l),
        config: join(repoRoot, "deploy", "nats", "nats-tls.conf"),
        env: {
          PATH: process.env.PATH ?? "",
          ...Object.fromEntries(natsUsers.map((u) => [passwordVariable(u), passwords[u]])),
          TROVE_NATS_TLS_CERT: certs.serverCert,
          TROVE_NATS_TLS_KEY: certs.serverKey,
          TROVE_NATS_TLS_CA: certs.ca,
        },
      });
      port = Number(new URL(server.url).port);
      tlsUrl = `tls://127.0.0.1:${port}`;
    });
    afterAll(async () => {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test("services signed in over TLS with a client certificate carry a request and its reply", async () => {
      const log = createLogger("silent");
      const items = await NatsBus.connect({ url: tlsUrl, prefix: "trove", log, access: as("items") });
      const gateway = await NatsBus.connect({ url: tlsUrl, prefix: "trove", log, access: as("gateway") });
      try {
        const served = items.serve("items.getItem", (payload, meta) => ({ asked: payload, caller: meta.headers["trove-caller"] }));
        expect(await gateway.request("items.getItem", { id: "itm_1" }, { headers: { "trove-caller": "alice" } })).toEqual({ asked: { id: "itm_1" }, caller: "alice" });
        await served.stop();
      } finally {
        await Promise.all([items.close(), gateway.close()]);
      }
    });

    test("a plaintext client, one without a client certificate and one that does not trust the CA are refused", async () => {
      const heard = await plaintextAnswer(port);
      expect(heard).toContain('"tls_required":true');
      expect(heard).not.toContain("PONG");
      await eventually(() => serverLog.some((l) => l.includes("TLS handshake error: tls: first record does not look like a TLS handshake")), 20_000);
      // No client certificate: the server ends the handshake (the client, not told why, gives up at its timeout).
      await refusal(connectNats(tlsUrl, as("gateway", { tls: { caFile: certs.ca } }), { timeout: 5_000 }));
      await eventually(() => serverLog.some((l) => l.includes("TLS handshake error: tls: client didn't provide a certificate")), 20_000);
      // A server certificate the client cannot trust.
      expect(await refusal(connectNats(tlsUrl, as("gateway", { tls: { ...tls, caFile: certs.otherCa } })))).toMatch(/unable to verify/);
      // The right certificates with the wrong password: TLS does not stand in for the user's password.
      expect(await refusal(connectNats(tlsUrl, { user: "gateway", password: "not-the-password", tls }))).toMatch(/Authorization Violation/);
    });

    const databaseUrl = process.env.DATABASE_URL;
    test.skipIf(!databaseUrl)("`bun run start` signed in as trove over TLS saves and reads an item (skipped without DATABASE_URL)", async () => {
      const dbUrl = await createScratchDatabase("natstls");
      const httpPort = await freePort();
      const env = processEnv({ databaseUrl: dbUrl, natsUrl: tlsUrl, prefix: "trove", how: "", stop: async () => {} }, httpPort, {
        NATS_USER: "trove",
        NATS_PASSWORD: passwords.trove,
        NATS_TLS_CA: certs.ca,
        NATS_TLS_CERT: certs.clientCert,
        NATS_TLS_KEY: certs.clientKey,
        TROVE_ADMIN_PORT: "off",
      });
      let proc: Subprocess | undefined;
      try {
        proc = Bun.spawn(["bun", "run", "start"], { cwd: repoRoot, env, stdout: "inherit", stderr: "inherit" });
        const url = `http://127.0.0.1:${httpPort}`;
        expect(await waitForHealth(url, "ok", 120_000)).toMatchObject({ bus: { kind: "nats", ok: true } });
        const headers = { authorization: `Bearer ${aliceKey}`, "content-type": "application/json" };
        const saved = await fetch(`${url}/api/ingest`, { method: "POST", headers, body: JSON.stringify({ url: "https://tls.example.invalid/", html: articleHtml }) });
        expect(saved.status).toBe(200);
        const { id } = (await saved.json()) as { id: string };
        const item = (await (await fetch(`${url}/api/items/${id}`, { headers })).json()) as { title: string };
        expect(item.title).toBe("Parsing Things Well");
      } finally {
        proc?.kill("SIGTERM");
        await proc?.exited;
        await dropScratchDatabase(dbUrl).catch(() => {});
      }
    }, 180_000);
  });
}
