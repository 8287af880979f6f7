import { Client } from "pg";
import { loadConfig } from "@recall/config";
import { adminUrl } from "./databases";

/** Drops the per-file databases a crashed test file may have left behind. */
export default async function globalTeardown(): Promise<void> {
  const admin = new Client({ connectionString: adminUrl(loadConfig().DATABASE_URL) });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'recall_test_f_%'`);
    for (const row of rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
