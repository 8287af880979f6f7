// Cursor pagination for every list: the cursor is the opaque position (sort key and
// id) of the last item of a page; the next page starts strictly after it.
import { z } from "zod";
import type { ListPosition } from "@recall/memory";

/**
 * What a list is ordered by, so its cursor is checked for that route: a timestamp as the API
 * writes it (toISOString), or a sequence number in Postgres' int4 range. A cursor that decodes
 * but does not fit its route (forged, or taken from another list) is a 400, never a database
 * error on a mistyped or out-of-range key.
 */
export type CursorKey = "time" | "seq";

const PG_INT4_MAX = 2_147_483_647;
/**
 * Years 1 to 9999 only: toISOString writes others as `+275760-…` or `-000001-…`, which Postgres
 * does not read as a timestamp, and year 0 does not exist for it.
 */
const ISSUED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const KEYS: Record<CursorKey, z.ZodType<string | number>> = {
  time: z.string().refine(isIssuedTime),
  seq: z.number().int().min(0).max(PG_INT4_MAX),
};

function isIssuedTime(text: string): boolean {
  if (!ISSUED_TIME.test(text)) return false;
  const at = new Date(text);
  return !Number.isNaN(at.getTime()) && at.toISOString() === text && at.getUTCFullYear() >= 1;
}

/** The `cursor` parameter of a list ordered by `key`. */
export function cursorParam(key: CursorKey) {
  const position = z.strictObject({ k: KEYS[key], id: z.uuid() });
  return z
    .string()
    .max(512)
    .transform((text, ctx) => {
      const parsed = position.safeParse(decode(text));
      if (parsed.success) return parsed.data;
      ctx.addIssue({ code: "custom", message: "is not a cursor this API issued" });
      return z.NEVER;
    })
    .optional()
    .describe("next_cursor of the previous page");
}

export const limitParam = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback).describe(`page size (default ${fallback}, at most ${max})`);

export const NextCursor = z.string().nullable().describe("pass as `cursor` for the next page; null on the last page");

export function encodeCursor(position: ListPosition | null): string | null {
  return position ? Buffer.from(JSON.stringify(position)).toString("base64url") : null;
}

function decode(text: string): unknown {
  try {
    return JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

/** A page from rows fetched with `take: limit + 1` in (createdAt, id) order: one row too many means a next page. */
export function pageByCreation<T extends { id: string; createdAt: Date }>(
  rows: T[],
  limit: number,
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: encodeCursor(rows.length > limit && last ? { k: last.createdAt.toISOString(), id: last.id } : null) };
}
