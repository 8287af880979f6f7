// A database per test file, cloned from the migrated template.
import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { loadConfig } from "@recall/config";

// Each `jest` run builds its own template (several runs may share one server);
// global setup names it and passes the name to test workers through the environment.
const RUN_ENV = "RECALL_TEST_RUN_ID";

/** The run's id: the one `pnpm test` (infra/test.ts) chose and passed down, so it can clean up after an interrupted run; else a new one. */
export function newTestRunId(): string {
  const given = process.env[RUN_ENV];
  const id = given && /^[0-9a-f]{8}$/.test(given) ? given : randomBytes(4).toString("hex");
  process.env[RUN_ENV] = id;
  return id;
}

/** This run's id where there is one (inside a `jest` run), for names that a cleanup after the run must find. */
export function currentTestRunId(): string | undefined {
  return process.env[RUN_ENV];
}

export function runId(): string {
  const id = process.env[RUN_ENV];
  if (!id) throw new Error("test databases need jest's global setup (run tests with `pnpm test`)");
  return id;
}

export const templateDb = (id = runId()) => `recall_test_t_${id}`;
export const fileDbPrefix = (id = runId()) => `recall_test_f_${id}_`;

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
  const name = `${fileDbPrefix()}${randomBytes(6).toString("hex")}`;
  await adminQuery(base, `CREATE DATABASE "${name}" TEMPLATE "${templateDb()}"`);
  return {
    url: withDatabase(base, name),
    name,
    drop: () => adminQuery(base, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/** Runs one statement (CREATE/DROP DATABASE, …) on the server's maintenance database. */
export async function adminQuery(base: string, sql: string): Promise<void> {
  const admin = new Client({ connectionString: adminUrl(base) });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}
