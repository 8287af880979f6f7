import type { z } from "zod";
import { fromZod } from "./errors";

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw fromZod(parsed.error, "body");
  return parsed.data;
}

export function parseParams<T extends z.ZodType>(schema: T, params: unknown): z.infer<T> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw fromZod(parsed.error, "path");
  return parsed.data;
}

/** The context id of a route mounted under /api/v1/:contextId (already checked against the API key). */
export function contextIdOf(req: { params: unknown }): string {
  return String((req.params as Record<string, string>).contextId);
}
