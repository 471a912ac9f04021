// Scratch PostgreSQL databases for tests: one per suite, named per run so runs never collide.
// Databases that earlier runs left behind (older than an hour) are dropped on the way.
import pg from "pg";

const prefix = "trove_t_";

/** Creates an empty database on the server at DATABASE_URL and returns its URL. */
export async function createScratchDatabase(tag: string): Promise<string> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error("DATABASE_URL is not set");
  const name = `${prefix}${Date.now()}_${tag.replace(/\W/g, "")}_${crypto.randomUUID().slice(0, 6)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      "select datname from pg_database where datname like $1",
      [`${prefix}%`],
    );
    const hourAgo = Date.now() - 3_600_000;
    for (const { datname } of rows) {
      const born = Number(datname.slice(prefix.length).split("_")[0]);
      if (born < hourAgo) await admin.query(`drop database if exists "${datname}" with (force)`).catch(() => {});
    }
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops a database made by createScratchDatabase (its connections are closed first). */
export async function dropScratchDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  if (!name.startsWith(prefix)) throw new Error(`${name} is not a scratch database`);
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL ?? url.replace(/\/[^/]*$/, "/postgres") });
  await admin.connect();
  try {
    await admin.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end();
  }
}
