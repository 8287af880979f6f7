// pnpm db:migrate: applies pending migrations (no Prisma engine needed).
import { loadConfig } from "@recall/config";
import { migrate } from "@recall/db/src/migrator";

migrate(loadConfig().DATABASE_URL).then(
  (report) => {
    console.log(`migrations: ${report.applied.length} applied, ${report.alreadyApplied.length} already applied`);
    for (const name of report.applied) console.log(`  applied ${name}`);
  },
  (err: Error) => {
    console.error(err.message);
    process.exit(1);
  },
);
