// The only module that reads process.env. Everything else receives a Config.
import { SetupError } from "@recall/contracts";
import { isIP } from "node:net";
import { z } from "zod";

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() !== "" ? v.trim() : undefined));

const modelRef = optionalString.refine(
  (v) => v === undefined || /^(anthropic|openai|openai-compatible):.+$/.test(v),
  "must look like provider:model with provider anthropic, openai or openai-compatible",
);

/** Embeddings come through the OpenAI embeddings API, which OpenAI-compatible servers also speak; Anthropic has none. */
const embeddingModelRef = optionalString.refine(
  (v) => v === undefined || /^(openai|openai-compatible):.+$/.test(v),
  "must look like provider:model with provider openai or openai-compatible",
);

const jsonRecord = optionalString.transform((v, ctx) => {
  if (v === undefined) return {} as Record<string, string>;
  try {
    return z.record(z.string(), z.string()).parse(JSON.parse(v));
  } catch {
    ctx.addIssue({ code: "custom", message: "must be a JSON object of strings" });
    return z.NEVER;
  }
});

export const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  DATABASE_URL: z.string().url().default("postgresql://postgres@127.0.0.1:5432/recall"),
  /**
   * The role the API and workers work as, one row-level security holds (docs/security.md); created by the migrations.
   * `none`: stay DATABASE_URL's user, which as a superuser ignores row-level security (only to measure its cost).
   */
  RECALL_DB_ROLE: z.string().min(1).default("recall_service"),
  /**
   * Streaming replicas of DATABASE_URL's server, comma-separated: the read-only routes run on them (docs/operating.md,
   * "Read replicas"); writes, work-item state and workers stay on the primary. Unset: every read runs on the primary.
   */
  DATABASE_REPLICA_URLS: optionalString
    .transform((v) =>
      v === undefined
        ? []
        : v
            .split(",")
            .map((u) => u.trim())
            .filter((u) => u !== ""),
    )
    .refine((urls) => urls.every((u) => URL.canParse(u) && /^postgres(ql)?:$/.test(new URL(u).protocol)), {
      message: "must be postgresql:// URLs separated by commas",
    }),
  /** A read presenting a consistency token waits at most this long for a replica to replay past it, then runs on the primary. */
  RECALL_REPLICA_WAIT_MS: z.coerce.number().int().min(0).max(10_000).default(200),
  /** A read without a token runs on a replica only while that replica's measured staleness is under this. */
  RECALL_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).default(1_000),
  /** How often each replica's state and lag are measured (a failed read leaves it out at once). */
  RECALL_REPLICA_CHECK_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  /** `redis://host:port` (one server), or `redis-cluster://h1:p1,h2:p2,h3:p3` (a Redis Cluster, seed nodes). */
  REDIS_URL: z
    .string()
    .default("redis://127.0.0.1:6379")
    .superRefine((v, ctx) => {
      const target = parseRedisUrl(v);
      if (!target.mode) ctx.addIssue({ code: "custom", message: target.error });
    }),
  ADMIN_API_KEY: optionalString,
  /**
   * Queue name prefix; the braces are a Redis Cluster hash tag keeping each queue's keys in one slot
   * (required with a redis-cluster:// REDIS_URL).
   */
  QUEUE_PREFIX: z.string().min(1).default("{recall}"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * Jobs per stage a worker process runs at once for interactive work (a caller waits on it). Extraction has this many
   * model calls out and twice as many jobs, so the rest of its jobs' work overlaps the calls (worker-runtime.ts).
   */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).default(4),
  /** Jobs per stage a worker process runs at once for background work, in slots of its own: it never holds interactive ones. */
  WORKER_BACKGROUND_CONCURRENCY: z.coerce.number().int().min(1).default(2),
  /**
   * `on`: an interactive turn whose extraction succeeded runs validation, commit and truth maintenance in the same job,
   * each still its own work item with its own claim, attempt and finish (docs/guarantees.md, Chained stages); `off`: every
   * stage is a job of its own queue.
   */
  RECALL_CHAINED_STAGES: z.enum(["on", "off"]).default("on"),
  /**
   * What `npm start` runs, each as a supervised child process: the API and the workers (`all`), or one
   * role alone for a deployment that scales them apart.
   */
  RECALL_ROLE: z.enum(["all", "api", "worker"]).default("all"),
  /** Worker processes `npm start` runs (each runs every queue). */
  RECALL_WORKER_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
  TURN_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Only a safety net: the relay is woken by NOTIFY when a commit writes outbox rows. */
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(2_000),
  /** Largest JSON request body accepted, in bytes; a larger one answers 413. */
  REQUEST_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(6 * 1024 * 1024),
  /**
   * Items (entities, attributes, relations, instructions and uncertainties together) one POST /facts
   * may carry; more answers 400 naming the section. A write commits in one transaction, so this
   * bounds how long it holds its locks and a pooled connection.
   */
  RECALL_FACT_WRITE_MAX_ITEMS: z.coerce.number().int().min(1).max(10_000).default(100),
  /**
   * Direct writes one API process runs at once; later ones wait their turn (up to
   * WRITE_WAIT_MS in fact-write.service.ts, then 503 with Retry-After), so writes never take every pooled
   * connection from the readers.
   */
  RECALL_FACT_WRITE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /**
   * Turns to one session are stored one at a time, in order of arrival; a turn waits this long for
   * the ones before it, then answers 503 with Retry-After (which @recall/client retries).
   */
  RECALL_SESSION_WAIT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** How long a write's Idempotency-Key keeps its first answer for replay to retries. */
  IDEMPOTENCY_RETENTION_HOURS: z.coerce.number().positive().default(24),
  /** How often a waiting turn re-reads its state in case a completion notification was lost. */
  TURN_FALLBACK_POLL_MS: z.coerce.number().int().min(10).default(1_000),
  /** The model provider's requests-per-minute limit, shared by every worker process (through Redis); unset: no limit. */
  RECALL_MODEL_RPM: z.coerce.number().int().min(1).optional(),
  /** Windowed extraction (turns posted with wait: false or in a batch): at most this many turns per model call, */
  RECALL_WINDOW_MAX_TURNS: z.coerce.number().int().min(1).max(200).default(20),
  /** and at most this many characters of turn text, */
  RECALL_WINDOW_MAX_CHARS: z.coerce.number().int().min(100).default(12_000),
  /** and a window not yet full is sent this long after its first turn (more trickling turns may join meanwhile). */
  RECALL_WINDOW_LINGER_MS: z.coerce.number().int().min(0).default(500),

  RECALL_FAST_MODEL: modelRef,
  RECALL_STRONG_MODEL: modelRef,
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalString,
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalString,
  LLM_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  RECALL_MAX_TOKENS: z.coerce.number().int().min(1).default(500_000),
  RECALL_MAX_WALL_MS: z.coerce.number().int().min(100).default(600_000),
  /**
   * How long a work item may stay `running` with no live queue job before the sweeper takes it
   * back as abandoned (its process died). Longer than any attempt may run: RECALL_MAX_WALL_MS.
   */
  RECALL_RUNNING_LEASE_SECONDS: z.coerce.number().int().min(1).default(900),
  /** How often each worker process's sweeper looks for work Redis lost (queued or retry-waiting items with no live job). */
  RECALL_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(10_000),
  /** A queued or retry-waiting item younger than this is left to whoever just queued it. */
  RECALL_SWEEP_AFTER_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * Finished pipeline records older than this many days are compacted by each worker process's retention loop
   * (docs/operating.md#retention-of-pipeline-records): model calls summed per day, attempts, plans and relayed outbox
   * events dropped, work items cut to what provenance and usage read. 0 disables it. At least 8 otherwise, so the
   * usage API's default range (7 days, any time of day) never reaches a day that is kept only as a daily sum.
   */
  RECALL_PIPELINE_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .refine((days) => days === 0 || days >= 8, "0 (off) or at least 8 days")
    .default(30),
  /**
   * BullMQ's job lock: a worker renews it every half of this while it runs a job; a job whose lock ran out
   * (its worker died) is stalled and runs again on another worker. Also how often stalled jobs are looked for.
   */
  WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1_000).default(30_000),
  /**
   * SIGTERM: the API stops accepting, answers what is in flight and exits; a worker stops taking jobs and lets
   * running ones finish. Past this bound the API closes its connections and a worker hands its unfinished jobs
   * back to the queue (their attempt closed as abandoned, no retry spent). Keep it under the orchestrator's kill
   * grace (Kubernetes: 30 s).
   */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000),
  /**
   * Test only (ignored unless NODE_ENV=test): each stage waits this long at its fault points (inside its
   * writing transaction, and between its work and recording the outcome), so a fault test can kill a
   * worker there. 0: no wait.
   */
  RECALL_FAULT_DELAY_MS: z.coerce.number().int().min(0).default(0),
  RECALL_HEURISTIC_CONFIDENCE: z.coerce.number().min(0).max(1).default(0.75),
  /** Unset: POST /query is full-text only and nothing is embedded. */
  RECALL_EMBEDDING_MODEL: embeddingModelRef,
  /** Asks the model for vectors this long (text-embedding-3 and later); unset: the model's own length. */
  RECALL_EMBEDDING_DIMENSIONS: optionalString.pipe(z.coerce.number<string | undefined>().int().min(1).max(16_000).optional()),

  /** Largest document accepted (a file, a raw body, or a JSON `text`), in bytes; larger ones answer 413. */
  RECALL_DOCUMENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(10 * 1024 * 1024),
  /** Largest body POST …/import reads (an NDJSON export), in bytes; past it the import stops with 413 (docs/export-format.md). */
  RECALL_IMPORT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(100 * 1024 * 1024),
  /**
   * Exports one API process streams at once, and the size of the small pool of their own their snapshots read on:
   * a client that stops reading holds one of these, never one of the pool every other request needs. One more
   * answers 429 with Retry-After.
   */
  RECALL_EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Exports of one context one API process streams at once; one more answers 429 with Retry-After. */
  RECALL_EXPORT_CONTEXT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Imports one API process reads at once (each batch takes a pooled connection); one more answers 429. */
  RECALL_IMPORT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /**
   * Imports into one context one API process reads at once; one more answers 429 with Retry-After. Two, since
   * importing one export twice at once is safe (every row is created once) and a client may retry before its first
   * attempt has noticed it was cut off.
   */
  RECALL_IMPORT_CONTEXT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /**
   * An export whose client has not taken the page last written to it (500 rows, or 2 documents) within this long is
   * cut: its socket destroyed, its snapshot ended.
   */
  RECALL_EXPORT_WRITE_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Where uploaded originals (HTML, PDF) are kept, one file per sha256; unset: in Postgres (documents.original). */
  RECALL_BLOB_DIR: optionalString,
  /** Threads of a worker process's CPU pool that only interactive work uses (the rules, parsing). */
  RECALL_CPU_THREADS: z.coerce.number().int().min(1).max(64).default(1),
  /** Threads background work (imports, documents, asynchronous turns) may use: its share of the CPU pool. */
  RECALL_CPU_BACKGROUND_THREADS: z.coerce.number().int().min(1).max(64).default(1),
  /** How much lower background threads run (nice, 0–19): on a saturated machine interactive work is served first. */
  RECALL_CPU_BACKGROUND_NICE: z.coerce.number().int().min(0).max(19).default(5),
  /** Longest one CPU task (reading a turn with the rules, parsing a document) may run before its work item fails with class budget. */
  RECALL_CPU_TASK_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  /** Heap limit of a CPU pool thread; a task that needs more fails with class budget. */
  RECALL_CPU_TASK_MAX_HEAP_MB: z.coerce.number().int().min(32).default(1_024),
  /** How long the extract stage may spend reading one PDF's text before the document fails. */
  RECALL_PDF_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(60_000),

  PIPELINE_SKILLS_DIR: optionalString,
  PIPELINE_DEFAULT_EXTRACTION_SKILL: optionalString,
  PIPELINE_DEFAULT_EXTRACTION_PURPOSE: optionalString,
  PIPELINE_SKILL_BY_SOURCE_TYPE_JSON: jsonRecord,

  /**
   * Model prices for the estimated-cost metric: {"openai:gpt-4o-mini": "0.15/0.60"}, US dollars per
   * million input/output tokens, keyed like RECALL_FAST_MODEL. Unpriced models count tokens, not cost.
   */
  RECALL_MODEL_PRICES_JSON: jsonRecord.transform((table, ctx) => {
    const prices: Record<string, { inputPerMTok: number; outputPerMTok: number }> = {};
    for (const [model, text] of Object.entries(table)) {
      const [input, output] = text.split("/").map(Number);
      if (input === undefined || output === undefined || !(input >= 0) || !(output >= 0)) {
        ctx.addIssue({ code: "custom", message: `${model}: "${text}" is not "input/output" dollars per million tokens` });
        return z.NEVER;
      }
      prices[model] = { inputPerMTok: input, outputPerMTok: output };
    }
    return prices;
  }),
  /** A worker process serves its own /metrics here (jobs, model calls); 0 turns it off. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(9464),

  /**
   * Networks webhook URLs may reach although they are private, loopback or link-local (refused otherwise,
   * at registration and again at each delivery): comma-separated CIDRs, e.g. `10.0.0.0/8,::1/128`.
   */
  WEBHOOK_ALLOWED_NETWORKS: z
    .string()
    .default("")
    .transform((text, ctx) => {
      const networks = text
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      for (const cidr of networks) {
        const [address, bits] = cidr.split("/");
        const family = isIP(address ?? "");
        const max = family === 6 ? 128 : 32;
        if (family === 0 || bits === undefined || !/^\d+$/.test(bits) || Number(bits) > max) {
          ctx.addIssue({ code: "custom", message: `"${cidr}" is not a CIDR (address/prefix length)` });
          return z.NEVER;
        }
      }
      return networks;
    }),
  /** Webhooks one context may have. */
  WEBHOOK_MAX_PER_CONTEXT: z.coerce.number().int().min(1).max(1_000).default(10),
  /** One delivery request's whole time (connect, send, answer); longer counts as a failure. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** The first retry's delay; each next one doubles, up to WEBHOOK_RETRY_MAX_MS. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).default(5_000),
  WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(10).default(3_600_000),
  /** How long a delivery is retried from its first attempt (or its redelivery) before it is given up. */
  WEBHOOK_RETRY_FOR_MS: z.coerce.number().int().min(100).default(86_400_000),
  /** An endpoint failing this long without a success in between is disabled. */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce.number().int().min(100).default(86_400_000),
  /** Only a safety net: the dispatcher is woken by NOTIFY when events are written. */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).default(1_000),
  /** Deliveries one worker process sends at once. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** Delivered and given-up deliveries, and the events they carried, are deleted this long after they were written. */
  WEBHOOK_RETENTION_MS: z.coerce
    .number()
    .int()
    .min(60_000)
    .default(7 * 86_400_000),

  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString,
  OTEL_SERVICE_NAME: z.string().default("recall"),
  /**
   * Where the operators' dashboard links a trace id, e.g. `http://jaeger:16686/trace/{trace_id}`
   * (`{trace_id}` is replaced); unset, trace ids are shown as plain text.
   */
  RECALL_TRACE_URL_TEMPLATE: optionalString.refine((v) => v === undefined || (/^https?:\/\//.test(v) && v.includes("{trace_id}")), {
    message: "must be an http(s) URL containing {trace_id}",
  }),
});

export type Config = z.infer<typeof EnvSchema>;

/** The environment, and the settings that must agree with each other. */
const ConfigSchema = EnvSchema.refine((env) => env.RECALL_RUNNING_LEASE_SECONDS * 1_000 > env.RECALL_MAX_WALL_MS, {
  path: ["RECALL_RUNNING_LEASE_SECONDS"],
  message: "must be longer than RECALL_MAX_WALL_MS, or the sweeper takes back work that is still running",
}).refine((env) => parseRedisUrl(env.REDIS_URL).mode !== "cluster" || HASH_TAG.test(env.QUEUE_PREFIX), {
  path: ["QUEUE_PREFIX"],
  message:
    "must carry a Redis Cluster hash tag such as {recall} when REDIS_URL is a redis-cluster:// URL: BullMQ keeps each queue's keys in one slot only through it",
});

/** A non-empty `{…}` somewhere in the prefix: Redis Cluster hashes only that part of every key. */
const HASH_TAG = /\{[^{}]+\}/;

export interface RedisNode {
  host: string;
  port: number;
}

/** Where Redis is: one server (its URL, as ioredis takes it) or a cluster's seed nodes. */
export type RedisTarget = { mode: "single"; url: string } | { mode: "cluster"; nodes: RedisNode[]; username?: string; password?: string };

/**
 * Reads REDIS_URL: `redis://` or `rediss://` is one server; `redis-cluster://[user:password@]h1:p1,h2:p2`
 * lists a cluster's seed nodes (any reachable one finds the rest).
 */
export function parseRedisUrl(value: string): RedisTarget | { mode?: undefined; error: string } {
  const cluster = /^redis-cluster:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#]+)\/?$/.exec(value);
  if (cluster) {
    const nodes: RedisNode[] = [];
    for (const address of cluster[3]!.split(",")) {
      const m = /^([^:,\s]+):(\d{1,5})$/.exec(address.trim());
      if (!m || Number(m[2]) > 65_535)
        return { error: `redis-cluster:// takes host:port pairs separated by commas; "${address}" is not one` };
      nodes.push({ host: m[1]!, port: Number(m[2]) });
    }
    const username = cluster[1] ? decodeURIComponent(cluster[1]) : undefined;
    const password = cluster[2] ? decodeURIComponent(cluster[2]) : undefined;
    return { mode: "cluster", nodes, ...(username ? { username } : {}), ...(password ? { password } : {}) };
  }
  try {
    const url = new URL(value);
    if (url.protocol === "redis:" || url.protocol === "rediss:") return { mode: "single", url: value };
  } catch {
    // named below
  }
  return { error: "must be a redis://host:port URL or redis-cluster://host1:port1,host2:port2,…" };
}

/** Values no log line or error body may contain. */
export function configSecrets(config: Config): (string | undefined)[] {
  return [config.ADMIN_API_KEY, config.ANTHROPIC_API_KEY, config.OPENAI_API_KEY];
}

export class ConfigError extends SetupError {
  override name = "ConfigError";
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid environment:\n  ${lines.join("\n  ")}`);
  }
  return parsed.data;
}

/** Config for a test or a tool, from defaults plus explicit overrides; never reads process.env. */
export function configWith(overrides: Partial<Record<keyof Config, string>>): Config {
  return ConfigSchema.parse(overrides);
}

/**
 * The model providers' settings as the plain options packages/llm takes (structurally its
 * ProviderOptions), so that library never sees the environment.
 */
export function providerOptions(config: Config) {
  return {
    models: { fast: config.RECALL_FAST_MODEL, strong: config.RECALL_STRONG_MODEL, embedding: config.RECALL_EMBEDDING_MODEL },
    embeddingDimensions: config.RECALL_EMBEDDING_DIMENSIONS,
    anthropicApiKey: config.ANTHROPIC_API_KEY,
    anthropicBaseUrl: config.ANTHROPIC_BASE_URL,
    openaiApiKey: config.OPENAI_API_KEY,
    openaiBaseUrl: config.OPENAI_BASE_URL,
    timeoutMs: config.LLM_TIMEOUT_MS,
  };
}

/** The webhook dispatcher's settings (packages/pipeline WebhookDispatcher). */
export function webhookOptions(config: Config) {
  return {
    allowedNetworks: config.WEBHOOK_ALLOWED_NETWORKS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retry: { baseMs: config.WEBHOOK_RETRY_BASE_MS, maxMs: config.WEBHOOK_RETRY_MAX_MS, forMs: config.WEBHOOK_RETRY_FOR_MS },
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    pollMs: config.WEBHOOK_POLL_MS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    retentionMs: config.WEBHOOK_RETENTION_MS,
  };
}

/** A worker process's CPU pool (packages/extraction CpuPool). */
export function cpuPoolOptions(config: Config) {
  return {
    interactiveThreads: config.RECALL_CPU_THREADS,
    backgroundThreads: config.RECALL_CPU_BACKGROUND_THREADS,
    backgroundNice: config.RECALL_CPU_BACKGROUND_NICE,
    taskTimeoutMs: config.RECALL_CPU_TASK_TIMEOUT_MS,
    maxHeapMb: config.RECALL_CPU_TASK_MAX_HEAP_MB,
  };
}

/** The staged extractor's options (packages/extraction createStagedExtractorFactory). */
export function extractorOptions(config: Config) {
  return { providers: providerOptions(config), heuristicThreshold: config.RECALL_HEURISTIC_CONFIDENCE };
}

/**
 * A stage's fault point: resolves after RECALL_FAULT_DELAY_MS under NODE_ENV=test, at once otherwise. Fault
 * tests widen the windows in which a killed worker leaves work half done (see the Guarantees section).
 */
export function faultPoint(config: Config): () => Promise<void> {
  const ms = config.NODE_ENV === "test" ? config.RECALL_FAULT_DELAY_MS : 0;
  if (ms === 0) return () => Promise.resolve();
  return () => new Promise((resolve) => setTimeout(resolve, ms));
}

/** This process's environment, as a child process started with settings of its own inherits it (PATH, HOME, …). */
export function inheritedEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
}
