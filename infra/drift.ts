// pnpm db:drift: exits 2 when schema.prisma has changes no migration covers.
import { loadConfig } from "@recall/config";
import { diffMigrationsToSchema, isEmptyDiff } from "./prisma-cli";

const result = diffMigrationsToSchema(loadConfig().DATABASE_URL, true);
if (result.status !== 0) {
  console.error(result.stderr || result.stdout);
  process.exit(1);
}
if (!isEmptyDiff(result.stdout)) {
  console.error("schema.prisma differs from prisma/migrations; run `pnpm db:new-migration <name>`:\n" + result.stdout);
  process.exit(2);
}
console.log("no drift: prisma/migrations produce exactly schema.prisma");
