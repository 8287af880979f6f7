// Where a string still lives in the database: every text, varchar, json, jsonb, text[], tsvector and bytea column
// of every table of the public schema, read as text and searched case-insensitively (a tsvector shows its lexemes,
// bytea its bytes). Erasure tests use it to prove a turn's text is in no table at all, and redisKeysHolding that it
// is in no key of a queue prefix.
import { Cluster, type Redis } from "ioredis";
import type { Db } from "@recall/db";
import type { RedisConnection } from "@recall/pipeline";

const TYPES = ["text", "character varying", "json", "jsonb", "ARRAY", "tsvector", "bytea"];

export interface TextHit {
  table: string;
  column: string;
  rows: number;
}

export async function tablesHolding(db: Db, needle: string): Promise<TextHit[]> {
  const columns = await db.$queryRaw<{ table: string; column: string; type: string }[]>`
    SELECT table_name::text AS table, column_name::text AS column, data_type::text AS type FROM information_schema.columns
    WHERE table_schema = 'public' AND data_type = ANY(${TYPES}::text[]) AND table_name NOT LIKE '\\_prisma%'`;
  const hits: TextHit[] = [];
  for (const { table, column, type } of columns) {
    const value = type === "bytea" ? `encode("${column}", 'escape')` : `"${column}"::text`;
    const [row] = await db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM "${table}" WHERE strpos(lower(${value}), lower($1)) > 0`,
      needle,
    );
    if (row && row.n > 0) hits.push({ table, column, rows: row.n });
  }
  return hits;
}

/** Keys under the prefix whose value (any type: string, hash, list, set, sorted set, stream) holds the needle. */
export async function redisKeysHolding(redis: RedisConnection, prefix: string, needle: string): Promise<string[]> {
  // A cluster's keys are scanned node by node (SCAN walks one node's keyspace).
  const nodes = redis instanceof Cluster ? redis.nodes("master") : [redis];
  return (await Promise.all(nodes.map((node) => nodeKeysHolding(node, prefix, needle)))).flat();
}

async function nodeKeysHolding(redis: Redis, prefix: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  const lower = needle.toLowerCase();
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    cursor = next;
    for (const key of keys) if ((await redisValue(redis, key)).toLowerCase().includes(lower)) hits.push(key);
  } while (cursor !== "0");
  return hits;
}

async function redisValue(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  if (type === "string") return (await redis.get(key)) ?? "";
  if (type === "hash") return JSON.stringify(await redis.hgetall(key));
  if (type === "list") return JSON.stringify(await redis.lrange(key, 0, -1));
  if (type === "set") return JSON.stringify(await redis.smembers(key));
  if (type === "zset") return JSON.stringify(await redis.zrange(key, 0, -1));
  if (type === "stream") return JSON.stringify(await redis.xrange(key, "-", "+"));
  return "";
}
