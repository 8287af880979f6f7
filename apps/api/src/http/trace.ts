import { randomBytes } from "node:crypto";

/** A W3C trace id, for requests that arrive outside an active span. */
export function newTraceId(): string {
  return randomBytes(16).toString("hex");
}
