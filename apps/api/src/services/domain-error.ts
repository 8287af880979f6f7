// What a service throws when a request cannot be done as asked. Services name the reason with a
// code and never an HTTP status: http/errors.ts maps each code to its status once (issue 25;
// Documenso's AppError is the model), so the same service answers the API, MCP and CLI alike.

export type DomainErrorCode =
  /** The thing named does not exist in the caller's context. */
  | "not_found"
  /** It exists, but is not in a state that allows this (a revoked key rotated). */
  | "conflict"
  /** Input the route's schema could not judge (a context's own rule, a cap); `fields` name it. */
  | "invalid"
  /** Nothing is wrong with the request, but it cannot be served now; try again after `retryAfterSeconds`. */
  | "busy";

export interface DomainErrorField {
  field: string;
  message: string;
}

export class DomainError extends Error {
  override name = "DomainError";
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details: { fields?: DomainErrorField[]; retryAfterSeconds?: number; problem?: string } = {},
  ) {
    super(message);
  }
}

export const notFoundError = (what: string) => new DomainError("not_found", `${what} not found`);

/** One field the caller got wrong: a 400 naming it. */
export function invalidField(field: string, message: string): DomainError {
  return new DomainError("invalid", `${field}: ${message}`, { fields: [{ field, message }] });
}
