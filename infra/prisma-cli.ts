// Runs the Prisma CLI through scripts/prisma.mjs (offline engines) and captures its output.
import { spawnSync } from "node:child_process";
import path from "node:path";

export const repoRoot = path.resolve(__dirname, "..");
export const migrationsDir = path.join(repoRoot, "prisma/migrations");
export const schemaPath = path.join(repoRoot, "prisma/schema.prisma");

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function prismaCli(args: string[], databaseUrl: string): CliResult {
  const result = spawnSync(process.execPath, [path.join(repoRoot, "scripts/prisma.mjs"), ...args], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** SQL that takes a database built from the migrations folder to the shape of schema.prisma ("" when none). */
export function diffMigrationsToSchema(databaseUrl: string, hasMigrations: boolean, schema = schemaPath): CliResult {
  const from = hasMigrations ? ["--from-migrations", migrationsDir] : ["--from-empty"];
  return prismaCli(["migrate", "diff", ...from, "--to-schema-datamodel", schema, "--script"], databaseUrl);
}

/** SQL that takes the live database at `databaseUrl` to the shape of schema.prisma. */
export function diffDatabaseToSchema(databaseUrl: string): CliResult {
  return prismaCli(["migrate", "diff", "--from-url", databaseUrl, "--to-schema-datamodel", schemaPath, "--script"], databaseUrl);
}

/** Prisma prints this comment for an empty diff. */
export function isEmptyDiff(sql: string): boolean {
  return (
    sql
      .replace(/^--.*$/gm, "")
      .replace(/Loaded Prisma config.*$/gm, "")
      .trim() === ""
  );
}
