// pnpm db:new-migration <name>: writes prisma/migrations/<timestamp>_<name>/migration.sql
// with the SQL that brings the existing migrations to the shape of schema.prisma.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "@recall/config";
import { diffMigrationsToSchema, isEmptyDiff, migrationsDir } from "./prisma-cli";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: pnpm db:new-migration <name>   (lowercase letters, digits, underscores)");
  process.exit(2);
}
const hasMigrations = existsSync(migrationsDir) && readdirSync(migrationsDir, { withFileTypes: true }).some((e) => e.isDirectory());
const result = diffMigrationsToSchema(loadConfig().DATABASE_URL, hasMigrations);
if (result.status !== 0) {
  console.error(result.stderr || result.stdout);
  process.exit(1);
}
const sql = result.stdout.replace(/^Loaded Prisma config.*\n/m, "").trimStart();
if (isEmptyDiff(sql)) {
  console.log("schema.prisma matches the migrations; nothing to write");
  process.exit(0);
}
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const dir = path.join(migrationsDir, `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, "migration.sql"), sql);
writeFileSync(path.join(migrationsDir, "migration_lock.toml"), 'provider = "postgresql"\n');
console.log(`wrote ${path.relative(process.cwd(), dir)}/migration.sql`);
