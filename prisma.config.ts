// Configuration for the Prisma 6.19 CLI. Its native schema engine cannot be
// downloaded on air-gapped hosts, so migrate/diff commands run through the
// WebAssembly engine over a pg driver adapter (see prisma/README.md).
import { defineConfig } from "prisma/config";
import { OfflineMigrationAdapter } from "./infra/prisma-offline-adapter";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => new OfflineMigrationAdapter(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/recall"),
});
