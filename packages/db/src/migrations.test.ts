// The migrated database must match schema.prisma: a schema change without its migration fails CI.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { loadConfig } from "@recall/config";
import { createTestDatabase } from "@recall/test-support";
import { diffMigrationsToSchema, isEmptyDiff, prismaCli, schemaPath } from "../../../infra/prisma-cli";
import { migrate, readMigrations } from "./migrator";

test("prisma/migrations produce exactly schema.prisma (no drift)", () => {
  const db = loadConfig().DATABASE_URL;
  const result = diffMigrationsToSchema(db, true);
  expect(result.stderr).not.toMatch(/Error/);
  expect(result.status).toBe(0);
  expect(isEmptyDiff(result.stdout)).toBe(true);
});

test("a schema change without its migration is caught", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "recall-schema-"));
  const changed = path.join(dir, "schema.prisma");
  writeFileSync(changed, readFileSync(schemaPath, "utf8") + "\nmodel Unmigrated {\n  id Int @id\n}\n");
  const result = diffMigrationsToSchema(loadConfig().DATABASE_URL, true, changed);
  expect(result.status).toBe(0);
  expect(isEmptyDiff(result.stdout)).toBe(false);
  expect(result.stdout).toMatch(/CREATE TABLE "Unmigrated"/);
});

test("the runner records migrations as Prisma does, so Prisma sees the database as up to date", async () => {
  const database = await createTestDatabase();
  try {
    const status = prismaCli(["migrate", "status"], database.url);
    expect(status.stdout + status.stderr).toMatch(/Database schema is up to date/);
    const client = new Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query(
      `SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    await client.end();
    const files = await readMigrations(path.resolve(__dirname, "../../../prisma/migrations"));
    expect(rows.map((r) => [r.migration_name, r.checksum, r.applied_steps_count])).toEqual(files.map((m) => [m.name, m.checksum, 1]));
    expect(rows.every((r) => r.finished_at instanceof Date)).toBe(true);
    const again = await migrate(database.url);
    expect(again.applied).toEqual([]);
  } finally {
    await database.drop();
  }
});
