// pnpm db:migrate: makes sure the database exists, then applies pending migrations (no Prisma engine needed).
import { MissingServiceError, ensureServices } from "./local-services";
import { migrate } from "@recall/db/migrator";

async function main(): Promise<void> {
  const { databaseUrl } = await ensureServices({ DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL });
  const report = await migrate(databaseUrl);
  console.log(`migrations: ${report.applied.length} applied, ${report.alreadyApplied.length} already applied`);
  for (const name of report.applied) console.log(`  applied ${name}`);
}

main().catch((err: Error) => {
  console.error(err instanceof MissingServiceError ? err.message : err.message);
  process.exit(1);
});
