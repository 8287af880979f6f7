// Whether an error means Postgres could not be reached (down, restarting, out of connections), as opposed to
// something the statement did: the API answers 503 and workers retry without spending an attempt.
import { Prisma } from "./generated/client";

/** Prisma's codes for a server it cannot reach, that timed out, closed the connection, or a pool with no connection to give. */
const UNAVAILABLE_PRISMA_CODES = new Set(["P1001", "P1002", "P1017", "P2024"]);
/** What the pg driver adapter reports when the connection itself failed. */
const UNAVAILABLE_ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
/** SQLSTATE class 08 (connection exception), 57P01-57P03 (the server shutting down, crashed, or starting), 53300. */
const UNAVAILABLE_SQLSTATE = /^(08\d{3}|57P0[1-3]|53300)$/;
const UNAVAILABLE_SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EPIPE"]);
/** The pg driver's own messages for a connection that went away, which carry no code. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|Can't reach database server|connection error and is not queryable|server closed the connection/i;

/**
 * Postgres is down, restarting or out of connections: the request or job did nothing wrong and
 * will work once it is back (the API answers 503, a worker delays the job without spending an attempt).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== "object") return false;
    const { code, message, meta } = e as {
      code?: unknown;
      message?: unknown;
      meta?: { driverAdapterError?: { cause?: { kind?: string; code?: string } } };
    };
    if (e instanceof Prisma.PrismaClientInitializationError) return true;
    if (
      typeof code === "string" &&
      (UNAVAILABLE_PRISMA_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET_CODES.has(code))
    ) {
      return true;
    }
    const adapter = meta?.driverAdapterError?.cause;
    if (
      adapter?.kind &&
      (UNAVAILABLE_ADAPTER_KINDS.has(adapter.kind) || (adapter.kind === "postgres" && UNAVAILABLE_SQLSTATE.test(adapter.code ?? "")))
    ) {
      return true;
    }
    if (typeof message === "string" && UNAVAILABLE_MESSAGES.test(message)) return true;
  }
  return false;
}
