// What every API service is built with. Services own the rules; routes parse, call a
// service and answer.
import type { Db } from "@recall/db";
import type { QueueSet } from "@recall/pipeline";
import type { Logger } from "@recall/telemetry";

export interface ServiceDeps {
  db: Db;
  queues: QueueSet;
  logger: Logger;
}
