// Read replicas over HTTP (docs/operating.md, "Read replicas"). A write's answer carries the primary's WAL position
// after it (`Recall-Consistency`); a read presenting it is served where that write is visible (db read-replicas.ts).
// `Recall-Served-By` says where a read ran. Without DATABASE_REPLICA_URLS neither header is sent and every read runs
// on the primary, as before.
import { invalidField } from "@recall/contracts";
import type { Request, Response } from "express";
import { lsnValue, type Db } from "@recall/db";
import { replicaReads } from "@recall/telemetry";
import type { ApiDeps } from "../deps";

export const CONSISTENCY_HEADER = "Recall-Consistency";
export const SERVED_BY_HEADER = "Recall-Served-By";

/** Runs a read-only route's reads on a replica where one may serve them, else on the primary. */
export async function readWhereConsistent<T>(
  deps: Pick<ApiDeps, "db" | "reads">,
  req: Request,
  res: Response,
  read: (db: Db) => Promise<T>,
): Promise<T> {
  if (!deps.reads) return read(deps.db);
  res.locals["readOnly"] = true;
  const served = await deps.reads.read(consistencyToken(req), read);
  res.setHeader(SERVED_BY_HEADER, served.servedBy);
  replicaReads.inc({ served_by: served.servedBy, reason: served.reason ?? "" });
  return served.result;
}

/** The token a read presents, checked: a WAL position as the write's answer gave it (`16/B374D848`). */
function consistencyToken(req: Request): string | undefined {
  const value = req.get(CONSISTENCY_HEADER)?.trim();
  if (value === undefined || value === "") return undefined;
  if (lsnValue(value) === undefined)
    throw invalidField(`header.${CONSISTENCY_HEADER}`, "must be the value a write's answer gave in its Recall-Consistency header");
  return value;
}

/** A write's answer: the primary's position once it committed, for the caller's next read to present. */
export function needsWritePosition(deps: Pick<ApiDeps, "reads">, req: Request, res: Response, status: number): boolean {
  return deps.reads !== undefined && req.method !== "GET" && req.method !== "HEAD" && status < 300 && res.locals["readOnly"] !== true;
}
