// The operator contract, parsed once per process. A bad value stops start-up with one line naming the variable.
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import ipaddr from "ipaddr.js";

export type LimitScope = "lifetime" | "billing_cycle";

export type Profile = "small" | "large";

/**
 * What each profile sizes. `small` fits a 1 GB machine beside other programs: few threads that stop when idle,
 * small database buffers. `large` spends memory for throughput: a worker per core kept warm, PostgreSQL's default
 * buffers. Each setting can still be set on its own.
 */
export const profiles: Record<Profile, { extractWorkers: number; workerIdleMs: number; dbBuffersMb: number }> = {
  small: { extractWorkers: Math.min(2, availableParallelism()), workerIdleMs: 30_000, dbBuffersMb: 16 },
  large: { extractWorkers: availableParallelism(), workerIdleMs: 10 * 60_000, dbBuffersMb: 128 },
};

export interface SeedAccount {
  email: string;
  apiKey: string;
  /** The sign-in password (set at every start when given; the account keeps its password otherwise). */
  password?: string;
  plan: string;
  linkLimit: number;
  limitScope: LimitScope;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  natsUrl: string | undefined;
  /** How this process signs in to NATS (NATS_USER/NATS_PASSWORD or NATS_CREDS) and its TLS (NATS_TLS_*). */
  natsAccess: NatsAccess;
  busPrefix: string;
  seedAccounts: SeedAccount[];
  allowPrivateNetwork: boolean;
  rateLimit: number;
  maxBodyBytes: number;
  requestTimeoutMs: number;
  /** How long a browser session lasts from sign-in, in hours. */
  sessionTtlHours: number;
  /** How long a browser session may go unused before it ends, in hours. */
  sessionIdleHours: number;
  /** Sign-in attempts one address may start per 60 s. */
  signInLimit: number;
  /** Failed password checks (sign-in, or the current password when changing it) per account per 15 minutes. */
  signInAccountLimit: number;
  /** Check every service reply against the contract's response schema (tests); off, replies pass through. */
  validateResponses: boolean;
  /** How long a save waits for fetch and extraction before answering `background: true`. */
  ingestWaitMs: number;
  /** Sizes for the machine (TROVE_PROFILE): `small` (the default) or `large`; the settings below follow it. */
  profile: Profile;
  /** Worker threads for CPU-heavy work (page extraction): tasks that run at once. */
  extractWorkers: number;
  /** How long a worker thread may sit idle before it stops and gives its memory back (TROVE_WORKER_IDLE_MS). */
  workerIdleMs: number;
  /** The embedded database's shared buffers in MB (TROVE_DB_BUFFERS_MB; PGlite only). */
  dbBuffersMb: number;
  /** How long one page's extraction may run in its worker before it is stopped (`extract_timeout`). */
  extractTimeoutMs: number;
  /** Semantic and hybrid search (TROVE_SEMANTIC on|off): off, nothing is embedded and mode=semantic answers 503. */
  semantic: boolean;
  /** How long one embedding task (a batch of chunks, or a query) may run in its worker. */
  embedTimeoutMs: number;
  /** Lexical search: past this many matches only the newest this many are ranked, the rest follow newest first. */
  searchRanked: number;
  /** Seconds before attempts 2..5 of a webhook delivery (fewer values: fewer attempts). */
  webhookRetryDelays: number[];
  webhookDisableAfter: number;
  /** How long a webhook receiver has to answer: the spec's 10 s; tests shorten it. */
  webhookTimeoutMs: number;
  smtpPort: number;
  inboxDomain: string;
  /** Bytes of received mail kept at once while it waits to become items (TROVE_MAIL_SPOOL_BYTES); past it 452. */
  mailSpoolBytes: number;
  /** The longest a sources replica's scheduler sleeps between looks for due sources (TROVE_SOURCES_TICK_MS). */
  sourcesTickMs: number;
  youtubeFeedUrl: string;
  /** Hours a completed export's file is kept before it is deleted (TROVE_EXPORT_RETENTION_HOURS). */
  exportRetentionHours: number;
  /** Least time between two fetches of one host by the background fetch of imports (TROVE_IMPORT_HOST_GAP_MS). */
  importHostGapMs: number;
  /** Export (and, apart, import) jobs one account may have queued or running at once (TROVE_MAX_OPEN_JOBS). */
  maxOpenJobs: number;
  /** Export (and, apart, import) jobs one exports replica runs at once (TROVE_JOB_WORKERS); 0: it runs none. */
  jobWorkers: number;
  /** The longest an exports replica sleeps between looks for queued or abandoned jobs (TROVE_JOBS_TICK_MS). */
  jobsTickMs: number;
  /** A work queue claim's lease, renewed every third of it while the job runs (TROVE_JOB_LEASE_MS). */
  jobLeaseMs: number;
  /** How long a stop waits for running jobs before giving them back to the queue (TROVE_STOP_GRACE_MS). */
  stopGraceMs: number;
  /** x_articles: an RSS bridge's feed address with `{username}` (TROVE_X_RSS_URL_TEMPLATE); unset: X sources do not run. */
  xRssUrlTemplate: string | undefined;
  /** TROVE_X_BEARER_TOKEN: accepted and kept for a later X API poller; nothing uses it yet (offline builds). */
  xBearerToken: string | undefined;
  logLevel: string;
  /** Peers whose X-Forwarded-For (or Forwarded) is believed (TROVE_TRUSTED_PROXIES): addresses and CIDRs; none by default. */
  trustedProxies: string[];
  /** The admin server's port (TROVE_ADMIN_PORT: /healthz, /readyz, /metrics); 0 = any free port; null = none (off). */
  adminPort: number | null;
  /** The admin server's address (TROVE_ADMIN_HOST; default: HOST). */
  adminHost: string;
}

/** Every field unset: no credentials, and TLS only when NATS_URL says `tls://`. */
export interface NatsAccess {
  user?: string;
  password?: string;
  /** Path of a NATS credentials file (user JWT and NKey seed). */
  credsFile?: string;
  /** PEM files; set when any NATS_TLS_* is (TLS is then required). */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = "ConfigError";
  }
}

export const planDefaults = { plan: "personal", linkLimit: 100_000, limitScope: "lifetime" as LimitScope };

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === "" ? fallback : v;
}

function optional(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === "" ? undefined : v;
}

function int(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function flag(env: Env, name: string): boolean {
  const raw = (env[name] ?? "0").trim().toLowerCase();
  if (["1", "true", "yes"].includes(raw)) return true;
  if (["", "0", "false", "no"].includes(raw)) return false;
  throw new ConfigError(name, `must be 0 or 1, got "${env[name]}"`);
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = (env[name] ?? "").trim().toLowerCase();
  if (raw === "") return fallback;
  if (raw === "on") return true;
  if (raw === "off") return false;
  throw new ConfigError(name, `must be on or off, got "${env[name]}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
  }
  return raw;
}

/** A comma-separated list of seconds; fractions allowed (tests run retry schedules in milliseconds). */
function seconds(env: Env, name: string, fallback: number[], maxValues: number): number[] {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const parts = raw.split(",").map((p) => p.trim());
  if (parts.some((p) => !/^\d{1,7}(\.\d{1,3})?$/.test(p))) {
    throw new ConfigError(name, `must be a comma-separated list of seconds, got "${raw}"`);
  }
  if (parts.length > maxValues) throw new ConfigError(name, `takes at most ${maxValues} values, got ${parts.length}`);
  return parts.map(Number);
}

/** TROVE_ADMIN_PORT: a port (0: any free one), or `off` for no admin server. */
function adminPort(env: Env): number | null {
  const raw = (env.TROVE_ADMIN_PORT ?? "").trim().toLowerCase();
  if (raw === "off") return null;
  try {
    return int(env, "TROVE_ADMIN_PORT", 9464, 0, 65535);
  } catch {
    throw new ConfigError("TROVE_ADMIN_PORT", `must be a port (0 to 65535) or off, got "${env.TROVE_ADMIN_PORT}"`);
  }
}

/** An http(s) address with `{username}` in it (an RSS bridge for X accounts). */
function xTemplate(env: Env): string | undefined {
  const name = "TROVE_X_RSS_URL_TEMPLATE";
  const v = optional(env, name);
  if (v === undefined) return undefined;
  if (!v.includes("{username}")) throw new ConfigError(name, "must contain {username}");
  url({ [name]: v.replaceAll("{username}", "someone") }, name, ["http:", "https:"]);
  return v;
}

function seedAccounts(env: Env): SeedAccount[] {
  const name = "TROVE_SEED_ACCOUNTS";
  const raw = optional(env, name);
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(name, "must be a JSON array");
  }
  if (!Array.isArray(parsed)) throw new ConfigError(name, "must be a JSON array");
  return parsed.map((entry, i): SeedAccount => {
    const at = `${name}[${i}]`;
    if (!entry || typeof entry !== "object") throw new ConfigError(at, "must be an object");
    const e = entry as Record<string, unknown>;
    if (typeof e.email !== "string" || !e.email.includes("@")) throw new ConfigError(`${at}.email`, "must be an email address");
    if (typeof e.apiKey !== "string" || e.apiKey.length < 16) throw new ConfigError(`${at}.apiKey`, "must be a string of at least 16 characters");
    if (e.plan !== undefined && (typeof e.plan !== "string" || e.plan === "")) throw new ConfigError(`${at}.plan`, "must be a non-empty string");
    if (e.linkLimit !== undefined && !(Number.isInteger(e.linkLimit) && (e.linkLimit as number) >= 0)) {
      throw new ConfigError(`${at}.linkLimit`, "must be a non-negative integer");
    }
    if (e.limitScope !== undefined && e.limitScope !== "lifetime" && e.limitScope !== "billing_cycle") {
      throw new ConfigError(`${at}.limitScope`, 'must be "lifetime" or "billing_cycle"');
    }
    if (e.password !== undefined && (typeof e.password !== "string" || e.password.length < 10 || e.password.length > 1024)) {
      throw new ConfigError(`${at}.password`, "must be a string of 10 to 1024 characters");
    }
    return {
      email: e.email.toLowerCase(),
      apiKey: e.apiKey,
      plan: (e.plan as string | undefined) ?? planDefaults.plan,
      linkLimit: (e.linkLimit as number | undefined) ?? planDefaults.linkLimit,
      limitScope: (e.limitScope as LimitScope | undefined) ?? planDefaults.limitScope,
      ...(e.password !== undefined ? { password: e.password as string } : {}),
    };
  });
}

/** A file start-up must be able to read, checked for what it should contain so a wrong path fails here, not at the first reconnect. */
function readableFile(env: Env, name: string, looksRight: (text: string) => boolean, what: string): string | undefined {
  const path = optional(env, name);
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(name, `cannot read "${path}" (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (!looksRight(text)) throw new ConfigError(name, `"${path}" is not ${what}`);
  return path;
}

const pem = (text: string) => /-----BEGIN [A-Z0-9 ]+-----/.test(text);

function natsAccess(env: Env, natsUrl: string | undefined): NatsAccess {
  const user = optional(env, "NATS_USER");
  const password = optional(env, "NATS_PASSWORD");
  const credsFile = readableFile(
    env,
    "NATS_CREDS",
    (t) => t.includes("BEGIN NATS USER JWT") && t.includes("BEGIN USER NKEY SEED"),
    "a NATS credentials file (a user JWT and an NKey seed, as nsc writes them)",
  );
  const tls = {
    caFile: readableFile(env, "NATS_TLS_CA", pem, "a PEM file"),
    certFile: readableFile(env, "NATS_TLS_CERT", pem, "a PEM file"),
    keyFile: readableFile(env, "NATS_TLS_KEY", pem, "a PEM file"),
  };
  const set = ["NATS_USER", "NATS_PASSWORD", "NATS_CREDS", "NATS_TLS_CA", "NATS_TLS_CERT", "NATS_TLS_KEY"].filter((n) => optional(env, n) !== undefined);
  if (set.length > 0 && natsUrl === undefined) {
    throw new ConfigError(set[0]!, "is set but NATS_URL is not (without NATS_URL every service runs in this process and no NATS is used)");
  }
  if (user !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(user)) {
    throw new ConfigError("NATS_USER", `must be 1 to 64 letters, digits, _ or - (it also names the user's reply inbox), got "${user}"`);
  }
  if (user !== undefined && password === undefined) throw new ConfigError("NATS_PASSWORD", "must be set when NATS_USER is");
  if (password !== undefined && user === undefined) throw new ConfigError("NATS_USER", "must be set when NATS_PASSWORD is");
  if (credsFile !== undefined && user !== undefined) {
    throw new ConfigError("NATS_CREDS", "cannot be used with NATS_USER/NATS_PASSWORD: set one way to sign in to NATS");
  }
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
    throw new ConfigError(tls.certFile === undefined ? "NATS_TLS_CERT" : "NATS_TLS_KEY", "must be set together with NATS_TLS_CERT and NATS_TLS_KEY (a client certificate and its key)");
  }
  const access: NatsAccess = {};
  if (user !== undefined) Object.assign(access, { user, password });
  if (credsFile !== undefined) access.credsFile = credsFile;
  if (tls.caFile !== undefined || tls.certFile !== undefined) {
    access.tls = Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined));
  }
  return access;
}

/** Comma-separated IPv4/IPv6 addresses and CIDRs (`10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`). */
function addresses(env: Env, name: string): string[] {
  const raw = optional(env, name);
  if (raw === undefined) return [];
  return raw.split(",").map((part) => {
    const entry = part.trim();
    const slash = entry.indexOf("/");
    const address = slash === -1 ? entry : entry.slice(0, slash);
    const bits = slash === -1 ? null : entry.slice(slash + 1);
    const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
    if (!v4 && !(ipaddr.IPv6.isValid(address) && !address.includes("%"))) {
      throw new ConfigError(name, `must be a comma-separated list of IP addresses and CIDRs, got "${entry}"`);
    }
    const max = v4 ? 32 : 128;
    if (bits !== null && !(/^\d{1,3}$/.test(bits) && Number(bits) >= 1 && Number(bits) <= max)) {
      throw new ConfigError(name, `"${entry}": the prefix length must be 1 to ${max}`);
    }
    return entry;
  });
}

const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** Parses the environment; throws ConfigError on the first bad variable. */
export function parseConfig(env: Env): Config {
  const logLevel = str(env, "LOG_LEVEL", "info");
  if (!logLevels.includes(logLevel)) throw new ConfigError("LOG_LEVEL", `must be one of ${logLevels.join(", ")}`);
  const busPrefix = str(env, "TROVE_BUS_PREFIX", "trove");
  if (!/^[A-Za-z0-9_-]+$/.test(busPrefix)) throw new ConfigError("TROVE_BUS_PREFIX", "must be letters, digits, _ or -");
  const natsUrl = url(env, "NATS_URL", ["nats:", "tls:", "ws:", "wss:"]);
  const host = str(env, "HOST", "127.0.0.1");
  const profile = str(env, "TROVE_PROFILE", "small");
  if (profile !== "small" && profile !== "large") throw new ConfigError("TROVE_PROFILE", `must be small or large, got "${profile}"`);
  const sized = profiles[profile];
  return {
    port: int(env, "PORT", 8080, 0, 65535),
    host,
    dataDir: str(env, "TROVE_DATA_DIR", "./data"),
    databaseUrl: url(env, "DATABASE_URL", ["postgres:", "postgresql:"]),
    natsUrl,
    natsAccess: natsAccess(env, natsUrl),
    busPrefix,
    seedAccounts: seedAccounts(env),
    allowPrivateNetwork: flag(env, "TROVE_ALLOW_PRIVATE_NETWORK"),
    rateLimit: int(env, "TROVE_RATE_LIMIT", 300, 1),
    maxBodyBytes: int(env, "TROVE_MAX_BODY_BYTES", 10 * 1024 * 1024, 1024),
    requestTimeoutMs: int(env, "TROVE_REQUEST_TIMEOUT_MS", 30_000, 100),
    sessionTtlHours: int(env, "TROVE_SESSION_TTL_HOURS", 720, 1, 8760),
    sessionIdleHours: int(env, "TROVE_SESSION_IDLE_HOURS", 168, 1, 8760),
    signInLimit: int(env, "TROVE_SIGN_IN_LIMIT", 10, 1, 1_000_000),
    signInAccountLimit: int(env, "TROVE_SIGN_IN_ACCOUNT_LIMIT", 10, 1, 1_000_000),
    ingestWaitMs: int(env, "TROVE_INGEST_WAIT_MS", 8_000, 0, 60_000),
    profile,
    extractWorkers: int(env, "TROVE_EXTRACT_WORKERS", sized.extractWorkers, 1, 256),
    workerIdleMs: int(env, "TROVE_WORKER_IDLE_MS", sized.workerIdleMs, 1_000, 24 * 3_600_000),
    dbBuffersMb: int(env, "TROVE_DB_BUFFERS_MB", sized.dbBuffersMb, 1, 65_536),
    extractTimeoutMs: int(env, "TROVE_EXTRACT_TIMEOUT_MS", 15_000, 1, 600_000),
    semantic: onOff(env, "TROVE_SEMANTIC", true),
    embedTimeoutMs: int(env, "TROVE_EMBED_TIMEOUT_MS", 30_000, 1, 600_000),
    searchRanked: int(env, "TROVE_SEARCH_RANKED", 1_000, 1, 100_000),
    validateResponses: flag(env, "TROVE_VALIDATE_RESPONSES"),
    webhookRetryDelays: seconds(env, "TROVE_WEBHOOK_RETRY_DELAYS", [60, 300, 900, 3600], 4),
    webhookDisableAfter: int(env, "TROVE_WEBHOOK_DISABLE_AFTER", 20, 1),
    webhookTimeoutMs: int(env, "TROVE_WEBHOOK_TIMEOUT_MS", 10_000, 1, 10_000),
    smtpPort: int(env, "TROVE_SMTP_PORT", 2525, 0, 65535),
    inboxDomain: str(env, "TROVE_INBOX_DOMAIN", "inbox.localhost"),
    // At least one message of the largest size the listener takes (10 MiB).
    mailSpoolBytes: int(env, "TROVE_MAIL_SPOOL_BYTES", 1024 * 1024 * 1024, 10 * 1024 * 1024, 1024 ** 4),
    sourcesTickMs: int(env, "TROVE_SOURCES_TICK_MS", 60_000, 50, 3_600_000),
    exportRetentionHours: int(env, "TROVE_EXPORT_RETENTION_HOURS", 168, 1, 8_760),
    importHostGapMs: int(env, "TROVE_IMPORT_HOST_GAP_MS", 2_000, 0, 600_000),
    maxOpenJobs: int(env, "TROVE_MAX_OPEN_JOBS", 3, 1, 1_000),
    jobWorkers: int(env, "TROVE_JOB_WORKERS", 2, 0, 32),
    jobsTickMs: int(env, "TROVE_JOBS_TICK_MS", 5_000, 50, 3_600_000),
    jobLeaseMs: int(env, "TROVE_JOB_LEASE_MS", 30_000, 1_000, 600_000),
    stopGraceMs: int(env, "TROVE_STOP_GRACE_MS", 10_000, 0, 600_000),
    youtubeFeedUrl: url(env, "TROVE_YOUTUBE_FEED_URL", ["http:", "https:"]) ?? "https://www.youtube.com/feeds/videos.xml",
    xRssUrlTemplate: xTemplate(env),
    xBearerToken: optional(env, "TROVE_X_BEARER_TOKEN"),
    logLevel,
    trustedProxies: addresses(env, "TROVE_TRUSTED_PROXIES"),
    adminPort: adminPort(env),
    adminHost: str(env, "TROVE_ADMIN_HOST", host),
  };
}

let cached: Config | undefined;

/** The process's config, parsed from process.env on first use. The only reader of process.env. */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
