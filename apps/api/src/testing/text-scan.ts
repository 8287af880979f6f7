// Where a string still lives in the database: every text, varchar, json, jsonb, text[], tsvector and bytea column
// of every table of the public schema, read as text and searched case-insensitively (a tsvector shows its lexemes,
// bytea its bytes). Erasure tests use it to prove a turn's text is in no table at all.
import type { Db } from "@recall/db";

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
