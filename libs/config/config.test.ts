import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, parseConfig } from "./index.ts";

describe("parseConfig", () => {
  test("defaults follow the operator contract", () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      dataDir: "./data",
      databaseUrl: undefined,
      natsUrl: undefined,
      rateLimit: 300,
      allowPrivateNetwork: false,
      webhookRetryDelays: [60, 300, 900, 3600],
      webhookDisableAfter: 20,
      webhookTimeoutMs: 10_000,
      smtpPort: 2525,
      inboxDomain: "inbox.localhost",
      mailSpoolBytes: 1024 * 1024 * 1024,
      sourcesTickMs: 60_000,
      xRssUrlTemplate: undefined,
      xBearerToken: undefined,
      logLevel: "info",
      seedAccounts: [],
      profile: "small",
      extractWorkers: Math.min(2, availableParallelism()),
      workerIdleMs: 30_000,
      dbBuffersMb: 16,
      extractTimeoutMs: 15_000,
      semantic: true,
      embedTimeoutMs: 30_000,
      jobLeaseMs: 30_000,
      stopGraceMs: 10_000,
      adminPort: 9464,
      adminHost: "127.0.0.1",
    });
  });

  test.each([
    ["PORT", "eighty", /PORT/],
    ["PORT", "70000", /PORT/],
    ["TROVE_RATE_LIMIT", "0", /TROVE_RATE_LIMIT/],
    ["TROVE_EXTRACT_WORKERS", "0", /TROVE_EXTRACT_WORKERS/],
    ["TROVE_PROFILE", "huge", /TROVE_PROFILE/],
    ["TROVE_WORKER_IDLE_MS", "10", /TROVE_WORKER_IDLE_MS/],
    ["TROVE_DB_BUFFERS_MB", "0", /TROVE_DB_BUFFERS_MB/],
    ["TROVE_EXTRACT_TIMEOUT_MS", "soon", /TROVE_EXTRACT_TIMEOUT_MS/],
    ["TROVE_SEMANTIC", "maybe", /TROVE_SEMANTIC/],
    ["TROVE_EMBED_TIMEOUT_MS", "0", /TROVE_EMBED_TIMEOUT_MS/],
    ["TROVE_SESSION_TTL_HOURS", "0", /TROVE_SESSION_TTL_HOURS/],
    ["TROVE_SESSION_TTL_HOURS", "9000", /TROVE_SESSION_TTL_HOURS/],
    ["TROVE_SIGN_IN_LIMIT", "0", /TROVE_SIGN_IN_LIMIT/],
    ["TROVE_SIGN_IN_ACCOUNT_LIMIT", "0", /TROVE_SIGN_IN_ACCOUNT_LIMIT/],
    ["TROVE_SESSION_IDLE_HOURS", "0", /TROVE_SESSION_IDLE_HOURS/],
    ["TROVE_SEED_ACCOUNTS", '[{"email":"a@example.test","apiKey":"0123456789abcdef","password":"short"}]', /password/],
    ["TROVE_SEED_ACCOUNTS", '[{"email":"a@example.test","apiKey":"0123456789abcdef","password":42}]', /password/],
    ["DATABASE_URL", "mysql://x", /DATABASE_URL/],
    ["NATS_URL", "not a url", /NATS_URL/],
    ["TROVE_ALLOW_PRIVATE_NETWORK", "maybe", /TROVE_ALLOW_PRIVATE_NETWORK/],
    ["TROVE_WEBHOOK_RETRY_DELAYS", "60,soon", /TROVE_WEBHOOK_RETRY_DELAYS/],
    ["TROVE_WEBHOOK_RETRY_DELAYS", "1,,2", /TROVE_WEBHOOK_RETRY_DELAYS/],
    ["TROVE_WEBHOOK_RETRY_DELAYS", "-1", /TROVE_WEBHOOK_RETRY_DELAYS/],
    ["TROVE_WEBHOOK_RETRY_DELAYS", "1,2,3,4,5", /at most 4/],
    ["TROVE_X_RSS_URL_TEMPLATE", "https://bridge.example.test/x", /\{username\}/],
    ["TROVE_X_RSS_URL_TEMPLATE", "ftp://bridge.example.test/{username}", /TROVE_X_RSS_URL_TEMPLATE/],
    ["TROVE_WEBHOOK_TIMEOUT_MS", "20000", /TROVE_WEBHOOK_TIMEOUT_MS/],
    ["TROVE_SOURCES_TICK_MS", "10", /TROVE_SOURCES_TICK_MS/],
    ["TROVE_MAIL_SPOOL_BYTES", "1048576", /TROVE_MAIL_SPOOL_BYTES/],
    ["TROVE_MAIL_SPOOL_BYTES", "lots", /TROVE_MAIL_SPOOL_BYTES/],
    ["TROVE_SOURCES_TICK_MS", "soon", /TROVE_SOURCES_TICK_MS/],
    ["LOG_LEVEL", "loud", /LOG_LEVEL/],
    ["TROVE_JOB_LEASE_MS", "999", /TROVE_JOB_LEASE_MS/],
    ["TROVE_JOB_LEASE_MS", "600001", /TROVE_JOB_LEASE_MS/],
    ["TROVE_STOP_GRACE_MS", "soon", /TROVE_STOP_GRACE_MS/],
    ["TROVE_STOP_GRACE_MS", "600001", /TROVE_STOP_GRACE_MS/],
    ["TROVE_ADMIN_PORT", "70000", /TROVE_ADMIN_PORT/],
    ["TROVE_ADMIN_PORT", "none", /TROVE_ADMIN_PORT/],
    ["TROVE_SEED_ACCOUNTS", "{", /TROVE_SEED_ACCOUNTS/],
    ["TROVE_SEED_ACCOUNTS", '[{"email":"a@b.test","apiKey":"short"}]', /TROVE_SEED_ACCOUNTS\[0\]\.apiKey/],
    ["TROVE_SEED_ACCOUNTS", '[{"email":"a@b.test","apiKey":"long-enough-key-123","limitScope":"weekly"}]', /limitScope/],
  ])("%s=%s stops start-up with one line naming the variable", (name, value, pattern) => {
    let err: unknown;
    try {
      parseConfig({ [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(pattern);
    expect((err as Error).message).not.toContain("\n");
  });

  test("webhook retry delays take fractions of a second, so tests can run a schedule in milliseconds", () => {
    expect(parseConfig({ TROVE_WEBHOOK_RETRY_DELAYS: "0.05, 0.05,1.5,60" }).webhookRetryDelays).toEqual([0.05, 0.05, 1.5, 60]);
    expect(parseConfig({ TROVE_WEBHOOK_RETRY_DELAYS: "30" }).webhookRetryDelays).toEqual([30]);
  });

  test("X sources: an RSS bridge template with {username}; the bearer token is kept", () => {
    const c = parseConfig({ TROVE_X_RSS_URL_TEMPLATE: "https://bridge.example.test/x/{username}.rss", TROVE_X_BEARER_TOKEN: "t0k" });
    expect(c.xRssUrlTemplate).toBe("https://bridge.example.test/x/{username}.rss");
    expect(c.xBearerToken).toBe("t0k");
  });

  test("a stop may give running jobs back at once (grace 0); a lease is at least a second", () => {
    expect(parseConfig({ TROVE_STOP_GRACE_MS: "0", TROVE_JOB_LEASE_MS: "1000" })).toMatchObject({ stopGraceMs: 0, jobLeaseMs: 1_000 });
  });

  test("the admin server: a port, 0 for any free one, off for none; its address follows HOST unless TROVE_ADMIN_HOST says", () => {
    expect(parseConfig({ TROVE_ADMIN_PORT: "0" }).adminPort).toBe(0);
    expect(parseConfig({ TROVE_ADMIN_PORT: "9100" }).adminPort).toBe(9100);
    expect(parseConfig({ TROVE_ADMIN_PORT: "off" }).adminPort).toBeNull();
    expect(parseConfig({ HOST: "0.0.0.0" }).adminHost).toBe("0.0.0.0");
    expect(parseConfig({ HOST: "0.0.0.0", TROVE_ADMIN_HOST: "127.0.0.1" }).adminHost).toBe("127.0.0.1");
  });

  test("TROVE_PROFILE=large sizes for a big machine; each setting still wins over its profile", () => {
    expect(parseConfig({ TROVE_PROFILE: "large" })).toMatchObject({ profile: "large", extractWorkers: availableParallelism(), workerIdleMs: 600_000, dbBuffersMb: 128 });
    expect(parseConfig({ TROVE_PROFILE: "large", TROVE_DB_BUFFERS_MB: "64", TROVE_EXTRACT_WORKERS: "3", TROVE_WORKER_IDLE_MS: "5000" })).toMatchObject({
      extractWorkers: 3,
      workerIdleMs: 5_000,
      dbBuffersMb: 64,
    });
  });

  test("TROVE_SEMANTIC switches semantic search on (default) or off", () => {
    expect(parseConfig({ TROVE_SEMANTIC: "off" }).semantic).toBe(false);
    expect(parseConfig({ TROVE_SEMANTIC: " ON " }).semantic).toBe(true);
  });

  test("seed accounts get the documented plan defaults", () => {
    const c = parseConfig({ TROVE_SEED_ACCOUNTS: '[{"email":"A@B.test","apiKey":"long-enough-key-123"}]' });
    expect(c.seedAccounts).toEqual([
      { email: "a@b.test", apiKey: "long-enough-key-123", plan: "personal", linkLimit: 100_000, limitScope: "lifetime" },
    ]);
  });

  test("TROVE_TRUSTED_PROXIES: none by default; addresses and CIDRs of either family; anything else stops start-up", () => {
    expect(parseConfig({}).trustedProxies).toEqual([]);
    expect(parseConfig({ TROVE_TRUSTED_PROXIES: "10.0.0.0/8, 192.0.2.7,2001:db8::/32 , ::1" }).trustedProxies).toEqual([
      "10.0.0.0/8",
      "192.0.2.7",
      "2001:db8::/32",
      "::1",
    ]);
    for (const bad of ["10.0.0.0/33", "10.0.0.0/0", "2001:db8::/129", "ingress", "10.0.0", "10.0.0.0/8,", "0x7f000001", "10.0.0.0/abc", "fe80::1%eth0"]) {
      expect(() => parseConfig({ TROVE_TRUSTED_PROXIES: bad })).toThrow(ConfigError);
      expect(() => parseConfig({ TROVE_TRUSTED_PROXIES: bad })).toThrow(/TROVE_TRUSTED_PROXIES/);
    }
  });
});

describe("NATS credentials and TLS", () => {
  const dir = mkdtempSync(join(tmpdir(), "trove-config-nats-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const pem = file("ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  const key = file("client.key", "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n");
  const creds = file(
    "trove.creds",
    "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QifQ.e30.sig\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\nSUAEXAMPLE\n------END USER NKEY SEED------\n",
  );
  const notPem = file("notes.txt", "hello");
  const url = "nats://127.0.0.1:4222";

  test("unset: no credentials and no TLS, as before", () => {
    expect(parseConfig({ NATS_URL: url }).natsAccess).toEqual({});
    expect(parseConfig({}).natsAccess).toEqual({});
  });

  test("a user and password, a credentials file, TLS files", () => {
    expect(parseConfig({ NATS_URL: url, NATS_USER: "items", NATS_PASSWORD: "s3cret" }).natsAccess).toEqual({ user: "items", password: "s3cret" });
    expect(parseConfig({ NATS_URL: url, NATS_CREDS: creds }).natsAccess).toEqual({ credsFile: creds });
    expect(parseConfig({ NATS_URL: "tls://127.0.0.1:4222", NATS_USER: "gateway", NATS_PASSWORD: "s3cret", NATS_TLS_CA: pem, NATS_TLS_CERT: pem, NATS_TLS_KEY: key }).natsAccess).toEqual({
      user: "gateway",
      password: "s3cret",
      tls: { caFile: pem, certFile: pem, keyFile: key },
    });
    expect(parseConfig({ NATS_URL: url, NATS_TLS_CA: pem }).natsAccess).toEqual({ tls: { caFile: pem } });
  });

  test.each([
    [{ NATS_USER: "items", NATS_PASSWORD: "s3cret" }, /^NATS_USER: is set but NATS_URL is not/],
    [{ NATS_URL: url, NATS_USER: "items" }, /^NATS_PASSWORD: must be set when NATS_USER is/],
    [{ NATS_URL: url, NATS_PASSWORD: "s3cret" }, /^NATS_USER: must be set when NATS_PASSWORD is/],
    [{ NATS_URL: url, NATS_USER: "items.all", NATS_PASSWORD: "s3cret" }, /^NATS_USER: must be 1 to 64 letters/],
    [{ NATS_URL: url, NATS_CREDS: join(dir, "missing.creds") }, /^NATS_CREDS: cannot read ".*missing\.creds" \(ENOENT\)/],
    [{ NATS_URL: url, NATS_CREDS: notPem }, /^NATS_CREDS: ".*notes\.txt" is not a NATS credentials file/],
    [{ NATS_URL: url, NATS_CREDS: creds, NATS_USER: "items", NATS_PASSWORD: "s3cret" }, /^NATS_CREDS: cannot be used with NATS_USER\/NATS_PASSWORD/],
    [{ NATS_URL: url, NATS_TLS_CA: notPem }, /^NATS_TLS_CA: ".*notes\.txt" is not a PEM file/],
    [{ NATS_URL: url, NATS_TLS_CERT: pem }, /^NATS_TLS_KEY: must be set together with NATS_TLS_CERT/],
    [{ NATS_URL: url, NATS_TLS_KEY: key }, /^NATS_TLS_CERT: must be set together/],
    [{ NATS_URL: url, NATS_TLS_KEY: dir }, /^NATS_TLS_KEY: cannot read/],
  ])("%j stops start-up with one line naming the variable", (env, pattern) => {
    let err: unknown;
    try {
      parseConfig(env);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(pattern);
    expect((err as Error).message).not.toContain("\n");
  });
});
