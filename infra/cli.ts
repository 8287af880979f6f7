// Operator CLI over DATABASE_URL and REDIS_URL, with the same rules as the HTTP routes
// (WorkItemService):
//   pnpm cli work-items [filter] [--limit N]          list, newest first
//   pnpm cli work-item <id>                           one item with every attempt
//   pnpm cli retry <id>… [--from extract]             retry these
//   pnpm cli retry --all [filter] [--dry-run]         retry every failed/dead item the filter matches
//   pnpm cli retry --dead [--context ID]              the same as --all --status dead
//   pnpm cli cancel <id>…                             cancel queued or failed items
//   pnpm cli embed-backfill [--context ID]
//   pnpm cli entities-rekey [--context ID]                identity keys stored before look-alike names were resolved
// filter: --context ID --status failed,dead --queue Q --error-class C --document ID --session ID --since ISO --until ISO
import { parseArgs } from "node:util";
import { loadConfig, providerOptions } from "@recall/config";
import { createDb, type ErrorClass, type WorkItem, type WorkStatus } from "@recall/db";
import { createEmbeddingClient } from "@recall/llm";
import { backfillEmbeddings, rekeyEntities } from "@recall/memory";
import { WorkItemService, createProducerConnection, createQueues, type RetryFrom, type WorkItemFilter } from "@recall/pipeline";
import { createLogger } from "@recall/telemetry";

const USAGE = `usage: pnpm cli work-items [filter] [--limit N]
       pnpm cli work-item <work-item-id>
       pnpm cli retry <work-item-id>… [--from extract] | --all [filter] [--dry-run] | --dead [--context ID]
       pnpm cli cancel <work-item-id>…
       pnpm cli embed-backfill [--context ID]
       pnpm cli entities-rekey [--context ID]
filter: --context ID --status failed,dead --queue NAME --error-class CLASS --document ID --session ID --since ISO --until ISO`;

const OPTIONS = {
  context: { type: "string" },
  status: { type: "string" },
  queue: { type: "string" },
  "error-class": { type: "string" },
  document: { type: "string" },
  session: { type: "string" },
  since: { type: "string" },
  until: { type: "string" },
  limit: { type: "string" },
  from: { type: "string" },
  all: { type: "boolean" },
  dead: { type: "boolean" },
  "dry-run": { type: "boolean" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

const list = (v: string | undefined) =>
  v
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);

function filterOf(values: Values): WorkItemFilter {
  return {
    contextId: values.context,
    statuses: values.dead ? ["dead"] : (list(values.status) as WorkStatus[] | undefined),
    queues: list(values.queue),
    errorClasses: list(values["error-class"]) as ErrorClass[] | undefined,
    documentId: values.document,
    sessionId: values.session,
    createdFrom: values.since ? new Date(values.since) : undefined,
    createdTo: values.until ? new Date(values.until) : undefined,
  };
}

const row = (i: WorkItem) =>
  [i.id, i.contextId, i.queue, i.subjectType, i.subjectId, i.status, i.attempts, i.errorClass ?? "", i.errorMessage ?? ""].join("\t");

async function run(service: WorkItemService, command: string | undefined, ids: string[], values: Values): Promise<boolean> {
  const from = (values.from ?? "failed") as RetryFrom;
  if (command === "work-items") {
    const page = await service.list(filterOf(values), { limit: Number(values.limit ?? 50) });
    for (const item of page.items) console.log(row(item));
  } else if (command === "work-item" && ids[0]) {
    const item = await service.get(ids[0]);
    if (!item) throw new Error(`no work item ${ids[0]}`);
    console.log(row(item));
    for (const a of item.attemptRecords) {
      const timing = `${a.startedAt.toISOString()} ${a.wallMs ?? "?"} ms`;
      console.log(
        `  attempt ${a.attempt}\t${a.status}\t${a.errorClass ?? ""}\t${a.tokensUsed} tokens\t${timing}\ttrace ${a.traceId ?? "-"}\t${a.errorMessage ?? ""}`,
      );
    }
  } else if (command === "retry" && (values.all || values.dead)) {
    const report = await service.retryMany(filterOf(values), { dryRun: values["dry-run"], from });
    if (report.dryRun) console.log(`would retry ${report.matched} work items`);
    for (const item of report.retried) console.log(`retried ${item.id} (${item.queue})`);
    for (const s of report.skipped) console.log(`skipped ${s.workItemId}: ${s.reason}`);
  } else if (command === "retry" && ids.length > 0) {
    for (const id of ids) console.log(`retried ${(await service.retry(id, { from })).id}`);
  } else if (command === "cancel" && ids.length > 0) {
    for (const id of ids) console.log(`cancelled ${(await service.cancel(id)).id}`);
  } else {
    return false;
  }
  return true;
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: OPTIONS });
  const [command, ...ids] = positionals;
  const config = loadConfig();
  // An operator's commands span contexts: the audited bypass of row-level security for every query.
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolMax: 2, unscoped: "bypass" });
  const redis = createProducerConnection(config.REDIS_URL);
  const queues = createQueues({ connection: redis, prefix: config.QUEUE_PREFIX });
  const service = new WorkItemService({ db, queues, logger: createLogger("warn", "recall-cli") });
  try {
    if (await run(service, command, ids, values)) return;
    if (command === "entities-rekey") {
      const report = await rekeyEntities(db, { contextId: values.context });
      console.log(`done: ${report.rekeyed} entities rekeyed, ${report.flagged} look-alike twins flagged as uncertainties`);
      return;
    }
    if (command !== "embed-backfill") throw new Error(USAGE);
    // Rows with no vector of the configured model and size: failed extractions, data from before vector search, a model switch.
    const embedder = createEmbeddingClient(providerOptions(config));
    if (!embedder) throw new Error("set RECALL_EMBEDDING_MODEL (and its provider's key) to embed");
    const report = await backfillEmbeddings(db, embedder, {
      contextId: values.context,
      dimensions: config.RECALL_EMBEDDING_DIMENSIONS,
      onBatch: (kind, n) => console.log(`embedded ${n} ${kind} rows`),
    });
    console.log(`done: ${report.embedded} rows in ${report.calls} calls, ${report.tokensUsed} tokens (${embedder.modelRef})`);
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
