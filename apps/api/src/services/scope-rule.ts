// A context may require a scope on every write (config `require_scope: true`, docs/scope.md):
// without it, a turn or document with no scope is visible to every reader of the context, which
// is rarely what a multi-user application means. Checked where each write is stored.
import { contextConfigOf, invalidField } from "@recall/contracts";
import type { DbOrTx } from "@recall/db";

/** Throws a 400 naming `field` when the context requires a scope and `scope` is empty. */
export function checkScope(storedConfig: unknown, scope: readonly string[] | undefined, field: string): void {
  if (scope && scope.length > 0) return;
  if (!contextConfigOf(storedConfig).require_scope) return;
  throw invalidField(field, 'is required in this context (its config sets require_scope: true): send e.g. ["org=acme", "user=alice"]');
}

export async function storedConfigOf(db: DbOrTx, contextId: string): Promise<unknown> {
  return (await db.context.findUnique({ where: { id: contextId }, select: { config: true } }))?.config;
}
