// Operator CLI: `pnpm cli work-items [--context ID] [--status dead]`, `pnpm cli retry <work-item-id>…`,
// `pnpm cli retry --dead [--context ID]`, `pnpm cli embed-backfill [--context ID]`. Talks to
// DATABASE_URL and REDIS_URL directly.
import { parseArgs } from "node:util";
import { loadConfig, providerOptions } from "@recall/config";
import { createDb, type WorkStatus } from "@recall/db";
import { createEmbeddingClient } from "@recall/llm";
import { backfillEmbeddings } from "@recall/memory";
import { createProducerConnection, createQueues, retryWorkItem } from "@recall/queues";

const USAGE =
  "usage: pnpm cli work-items [--context ID] [--status queued|running|succeeded|failed|dead] [--limit N]\n       pnpm cli retry <work-item-id>… | --dead [--context ID]\n       pnpm cli embed-backfill [--context ID]";

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { context: { type: "string" }, status: { type: "string" }, limit: { type: "string" }, dead: { type: "boolean" } },
  });
  const [command, ...ids] = positionals;
  const config = loadConfig();
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolMax: 2 });
  const redis = createProducerConnection(config.REDIS_URL);
  const queues = createQueues({ connection: redis, prefix: config.QUEUE_PREFIX });
  try {
    if (command === "work-items") {
      const items = await db.workItem.findMany({
        where: { contextId: values.context, status: values.status as WorkStatus | undefined },
        orderBy: { createdAt: "desc" },
        take: Number(values.limit ?? 50),
      });
      for (const i of items)
        console.log([i.id, i.queue, i.subjectType, i.subjectId, i.status, i.attempts, i.errorClass ?? "", i.errorMessage ?? ""].join("\t"));
    } else if (command === "retry") {
      const items = values.dead
        ? await db.workItem.findMany({ where: { status: "dead", contextId: values.context } })
        : await db.workItem.findMany({ where: { id: { in: ids } } });
      if (items.length === 0) throw new Error(values.dead ? "no dead work items" : `no work items with ids ${ids.join(", ")}`);
      for (const item of items) console.log(`retried ${(await retryWorkItem(db, queues, item)).id} (${item.queue})`);
    } else if (command === "embed-backfill") {
      // Rows with no vector of the configured model and size: failed extractions, data from before vector search, a model switch.
      const embedder = createEmbeddingClient(providerOptions(config));
      if (!embedder) throw new Error("set RECALL_EMBEDDING_MODEL (and its provider's key) to embed");
      const report = await backfillEmbeddings(db, embedder, {
        contextId: values.context,
        dimensions: config.RECALL_EMBEDDING_DIMENSIONS,
        onBatch: (kind, n) => console.log(`embedded ${n} ${kind} rows`),
      });
      console.log(`done: ${report.embedded} rows in ${report.calls} calls, ${report.tokensUsed} tokens (${embedder.modelRef})`);
    } else {
      throw new Error(USAGE);
    }
  } finally {
    await queues.close();
    redis.disconnect();
    await db.$disconnect();
  }
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
