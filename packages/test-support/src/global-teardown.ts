import { Client } from "pg";
import { loadConfig } from "@recall/config";
import { adminUrl, fileDbPrefix, templateDb } from "./databases";

/** Drops this run's template and the per-file databases a crashed test file may have left behind. */
export default async function globalTeardown(): Promise<void> {
  const admin = new Client({ connectionString: adminUrl(loadConfig().DATABASE_URL) });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [
      fileDbPrefix(),
    ]);
    for (const name of [...rows.map((r) => r.datname), templateDb()]) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
