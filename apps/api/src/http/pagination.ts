// Cursor pagination for every list: the cursor is the opaque position (sort key and
// id) of the last item of a page; the next page starts strictly after it.
import { z } from "zod";
import type { ListPosition } from "@recall/memory";

const Position = z.object({ k: z.union([z.number().int(), z.iso.datetime({ offset: true })]), id: z.uuid() });

export const Cursor = z
  .string()
  .max(512)
  .transform((text, ctx) => {
    const position = decode(text);
    if (position) return position;
    ctx.addIssue({ code: "custom", message: "is not a cursor this API issued" });
    return z.NEVER;
  })
  .optional()
  .describe("next_cursor of the previous page");

export const limitParam = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback).describe(`page size (default ${fallback}, at most ${max})`);

export const NextCursor = z.string().nullable().describe("pass as `cursor` for the next page; null on the last page");

export function encodeCursor(position: ListPosition | null): string | null {
  return position ? Buffer.from(JSON.stringify(position)).toString("base64url") : null;
}

function decode(text: string): ListPosition | undefined {
  try {
    const parsed = Position.safeParse(JSON.parse(Buffer.from(text, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : undefined;
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
