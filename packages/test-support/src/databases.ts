// A database per test file, cloned from the migrated template.
import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { loadConfig } from "@recall/config";

export const TEMPLATE_DB = "recall_test_template";

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** The maintenance database on the same server, for CREATE/DROP DATABASE. */
export function adminUrl(url: string): string {
  return withDatabase(url, "postgres");
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const base = loadConfig().DATABASE_URL;
  const name = `recall_test_f_${randomBytes(6).toString("hex")}`;
  await adminQuery(base, `CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DB}"`);
  return {
    url: withDatabase(base, name),
    name,
    drop: () => adminQuery(base, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

async function adminQuery(base: string, sql: string): Promise<void> {
  const admin = new Client({ connectionString: adminUrl(base) });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}
