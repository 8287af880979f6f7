// A direct write, as POST /facts runs it inside the API process, in a process of its own so a
// test can kill it part-way: `node --import tsx fact-write-process.ts <context id> '<request body>'`.
import { loadConfig } from "@recall/config";
import { createDb, withTenant } from "@recall/db";
import { writeFacts } from "@recall/memory";
import { directStages } from "@recall/pipeline";

async function main(): Promise<void> {
  const [contextId, body] = process.argv.slice(2);
  if (!contextId || !body) throw new Error("usage: fact-write-process.ts <context id> '<request body>'");
  const { scope, ...diff } = JSON.parse(body) as { scope: string[] };
  const db = createDb({ databaseUrl: loadConfig().DATABASE_URL });
  try {
    await withTenant(contextId, () => writeFacts(db, directStages(db), { contextId, scope, diff, traceId: "d".repeat(32) }));
  } finally {
    await db.$disconnect();
  }
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
