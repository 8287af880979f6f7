// How callers name a reader or writer scope: a list of key=value pairs in a body
// (["org=acme", "user=alice"]), or an object ({"org": "acme"}), or in a query string
// scope[org]=acme&scope[user]=alice. All become the normalised list of ../scope.ts.
import { z } from "zod";
import { ScopeEntry, ScopeForms, ScopeList, ScopeObject, withinScopeEntries } from "@recall/contracts";
import { scopeFromQuery } from "@recall/memory";

// The entry and list schemas (and their caps) are the contracts' own, so the import checks a line's scope the same way.
export { ScopeEntry, ScopeList };

/** A scope in a body, either form, as the normalised list; for a field that may be absent. */
export const ScopeInput = ScopeForms.transform((v) => scopeFromQuery(v)).describe(
  'key=value pairs such as ["org=acme", "user=alice"], or {"org": "acme", "user": "alice"}',
);

/** A body's scope: a list or an object; empty when absent (unscoped). */
export const ScopeBody = ScopeForms.default([])
  .transform((v) => scopeFromQuery(v))
  .describe(ScopeInput.description!);

/** A query string's scope: scope[org]=acme&scope[user]=alice (or scope=org=acme repeated). */
export const ScopeQuery = withinScopeEntries(z.union([ScopeObject, z.array(ScopeEntry), ScopeEntry]))
  .optional()
  .transform((v) => scopeFromQuery(v))
  .meta({
    description: "the reader's scope: scope[org]=acme&scope[user]=alice; only memory written in a subset of it is visible",
    examples: [{ org: "acme", user: "alice" }],
  });
