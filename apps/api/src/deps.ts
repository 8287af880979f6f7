import type { Config } from "@recall/config";
import type { Db, ReadReplicas } from "@recall/db";
import type { VectorRetriever } from "@recall/memory";
import type { QueueSet, RedisConnection, WorkItemService } from "@recall/pipeline";
import type { Logger } from "@recall/telemetry";
import type { Drain } from "./http/drain";
import type { ErasureService } from "./services/erasure.service";
import type { PortabilityService } from "./services/portability.service";
import type { ReviewService } from "./services/review.service";
import type { TurnCompletion } from "./services/turn-completion";
import type { TurnService } from "./services/turn.service";

export interface ApiDeps {
  config: Config;
  db: Db;
  /** The read replicas of DATABASE_REPLICA_URLS; absent without them (http/consistency.ts). */
  reads?: ReadReplicas;
  queues: QueueSet;
  redis: RedisConnection;
  logger: Logger;
  /** Wakes requests waiting on a turn when its work commits (Postgres NOTIFY). */
  turns: TurnCompletion;
  /** Sessions and turns; one per process, since it keeps each session's turns in order of arrival. */
  turnService: TurnService;
  /** Listing, retrying and cancelling work items: the rules the CLI and MCP follow too. */
  workItems: WorkItemService;
  /** Review before commit, for the API's routes, MCP, the dashboard and imports alike. */
  reviews: ReviewService;
  /** Export and import, with their caps; one per process, since it counts what runs (and owns the exports' pool). */
  portability: PortabilityService;
  /** Erasure of inputs, and of whole contexts (admin). */
  erasures: ErasureService;
  /** Semantic search for POST /query; absent unless RECALL_EMBEDDING_MODEL is set (see vector-search.ts). */
  vector?: VectorRetriever;
  /** Graceful shutdown: requests in flight, and whether new ones are still taken (see http/drain.ts). */
  drain: Drain;
}
