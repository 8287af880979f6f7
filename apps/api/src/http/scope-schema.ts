// How callers name a reader or writer scope: a list of key=value pairs in a body
// (["org=acme", "user=alice"]), or an object ({"org": "acme"}), or in a query string
// scope[org]=acme&scope[user]=alice. All become the normalised list of ../scope.ts.
import { z } from "zod";
import { scopeFromQuery } from "@recall/memory";

const KEY = /^[A-Za-z0-9_.-]+$/;
const VALUE = /^[^=\s][^\s]*$/;

export const ScopeEntry = z.string().regex(/^[A-Za-z0-9_.-]+=[^=\s][^\s]*$/, "each scope entry must look like key=value");

export const ScopeList = z.array(ScopeEntry).max(32);

const ScopeObject = z
  .record(
    z.string().regex(KEY, "scope keys are letters, digits, _ . -"),
    z.string().regex(VALUE, "must be a non-empty value without spaces"),
  )
  .refine((scope) => Object.keys(scope).length <= 32, "at most 32 scope entries");

/** A scope in a body, either form, as the normalised list; for a field that may be absent. */
export const ScopeInput = z
  .union([ScopeList, ScopeObject])
  .transform((v) => scopeFromQuery(v))
  .describe('key=value pairs such as ["org=acme", "user=alice"], or {"org": "acme", "user": "alice"}');

/** A body's scope: a list or an object; empty when absent (unscoped). */
export const ScopeBody = z
  .union([ScopeList, ScopeObject])
  .default([])
  .transform((v) => scopeFromQuery(v))
  .describe(ScopeInput.description!);

/** A query string's scope: scope[org]=acme&scope[user]=alice (or scope=org=acme repeated). */
export const ScopeQuery = z
  .union([ScopeObject, ScopeList, ScopeEntry])
  .optional()
  .transform((v) => scopeFromQuery(v))
  .meta({
    description: "the reader's scope: scope[org]=acme&scope[user]=alice; only memory written in a subset of it is visible",
    examples: [{ org: "acme", user: "alice" }],
  });
