// The migrated database must match schema.prisma: a schema change without its migration fails CI.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { loadConfig } from "@recall/config";
import { createTestDatabase } from "@recall/test-support";
import { diffMigrationsToSchema, isEmptyDiff, prismaCli, schemaPath } from "../../../infra/prisma-cli";
import { migrate, readMigrations } from "./migrator";

// One diff (the schema engine's diff is the slow part of this file): the migrations against schema.prisma with one
// model added. What it must create is that model and nothing else: anything more is drift between the migrations
// and the schema; the model missing would mean a change without its migration goes unseen.
test("prisma/migrations produce exactly schema.prisma, and a schema change without its migration is caught", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "recall-schema-"));
  const changed = path.join(dir, "schema.prisma");
  writeFileSync(changed, readFileSync(schemaPath, "utf8") + "\nmodel Unmigrated {\n  id Int @id\n}\n");
  const result = diffMigrationsToSchema(loadConfig().DATABASE_URL, true, changed);
  expect(result.stderr).not.toMatch(/Error/);
  expect(result.status).toBe(0);
  const unmigrated = /CREATE TABLE "Unmigrated" \([\s\S]*?\n\);/;
  expect(result.stdout).toMatch(unmigrated);
  const drift = result.stdout.replace(unmigrated, "");
  expect([isEmptyDiff(drift), drift]).toEqual([true, drift]);
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
