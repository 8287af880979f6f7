// One queue prefix, one database. Two deployments on one Redis with the same QUEUE_PREFIX (the
// default `{recall}` for both: staging and production sharing a Redis) would take each other's
// jobs: a worker of one finds no work item for a job of the other. So at start-up every API and
// worker process claims its prefix in Redis for its database (`SET NX` of `<prefix>:owner`), and
// refuses to start when another database holds it. The key sits under the prefix, so with a
// braced prefix it hashes to the queues' own Redis Cluster slot, and removing a prefix's keys
// removes the claim too. It never expires: a deployment that is stopped keeps its prefix. To hand
// a prefix to another database on purpose, delete the key (docs/deployments.md).
import { SetupError } from "@recall/contracts";
import { asOwner, type Db } from "@recall/db";
import type { RedisConnection } from "./connection";

export interface PrefixClaim {
  key: string;
  /** This process's database, as stored in the claim. */
  database: string;
  /** Whether this process wrote the claim (the first of its deployment) or found its own. */
  created: boolean;
}

export class PrefixClaimedError extends SetupError {
  override name = "PrefixClaimedError";
  constructor(
    readonly prefix: string,
    readonly holder: string,
    readonly database: string,
  ) {
    super(
      `QUEUE_PREFIX ${prefix} is claimed in this Redis by another database (${holder}); this process's database is ${database}. ` +
        `Two deployments sharing one Redis need a QUEUE_PREFIX each (e.g. {recall-staging}), or they take each other's jobs. ` +
        `If that database is gone for good, delete the key ${claimKey(prefix)} and start again.`,
    );
  }
}

export const claimKey = (prefix: string) => `${prefix}:owner`;

/**
 * The database's identity: the cluster's system identifier (unique per initdb, so a restored copy
 * on another server differs) and the database's name (so two databases of one server differ).
 */
export async function databaseIdentity(db: Db): Promise<string> {
  // pg_control_system() is for superusers and pg_monitor, not the service role: asked as the connecting user.
  const [row] = await asOwner(
    "startup",
    () => db.$queryRaw<{ system_identifier: string; database: string }[]>`
    SELECT system_identifier::text AS system_identifier, current_database()::text AS database FROM pg_control_system()`,
  );
  if (!row) throw new Error("pg_control_system() returned no row");
  return `postgres:${row.system_identifier}/${row.database}`;
}

/** Claims `prefix` for `database`, or finds it already ours; throws PrefixClaimedError when another holds it. */
export async function claimQueuePrefix(redis: RedisConnection, prefix: string, database: string): Promise<PrefixClaim> {
  const key = claimKey(prefix);
  const created = (await redis.set(key, database, "NX")) === "OK";
  if (created) return { key, database, created };
  const holder = await redis.get(key);
  // Deleted between the two calls: claim again.
  if (holder === null) return claimQueuePrefix(redis, prefix, database);
  if (holder !== database) throw new PrefixClaimedError(prefix, holder, database);
  return { key, database, created };
}

/** What a process runs at start-up, before it takes a request or a job. */
export async function claimQueuePrefixFor(deps: { db: Db; redis: RedisConnection; prefix: string }): Promise<PrefixClaim> {
  const database = await databaseIdentity(deps.db);
  await connected(deps.redis);
  return claimQueuePrefix(deps.redis, deps.prefix, database);
}

const CONNECT_TIMEOUT_MS = 10_000;

/** A producer connection refuses commands until it is connected (no offline queue): wait for it, bounded. */
async function connected(redis: RedisConnection): Promise<void> {
  if (redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off("ready", ready);
      reject(new Error(`Redis did not answer within ${CONNECT_TIMEOUT_MS} ms (REDIS_URL)`));
    }, CONNECT_TIMEOUT_MS);
    const ready = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once("ready", ready);
  });
}
