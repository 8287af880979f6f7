// The caps on what a write may store (docs/limits.md), declared once. Every way in takes them from here: the HTTP
// routes and the MCP tools through these schemas, the import through the same schemas per line, extraction through
// the candidate schemas validation checks. They are constants, not settings: an export of one server must import into
// any other, so what a server may hold cannot differ between servers.
import { z } from "zod";

export const WRITE_CAPS = {
  /** A turn's content, in characters. */
  content: 100_000,
  /** A turn's speaker name. */
  speaker: 200,
  /** Entries in one scope. */
  scope_entries: 32,
  /**
   * One `key=value` scope entry: a context stores each distinct scope once (scope_sets), but every input sent with a
   * new one stores it again; `org=acme` and `user=<uuid>` are far below it.
   */
  scope_entry: 256,
  /** A scope entry's key. */
  scope_key: 64,
  /** An entity's name or alias, and the names a fact points at (an attribute's entity, a relation's subject and object). */
  name: 200,
  /** Aliases of one entity. */
  aliases: 32,
  /** An entity type, an attribute key, a relation's verb: identifiers, not prose. */
  predicate: 100,
  /** An attribute's value; an instruction's label and description; an uncertainty's about and reason (as a review edit). */
  value: 2_000,
  /** An evidence quote: a sentence or a passage of the source, never the whole of it. */
  quote: 10_000,
  /** A document's source: its name and its own id (`external_id`), and a document's file name. */
  source: 500,
  /** A session's, document's or source's metadata, as JSON text. */
  metadata: 16_384,
  /** Attachments of one turn (images, files, links): each is described, never fetched. */
  attachments: 8,
  /** An attachment's caption or alt text: indexed and quotable, so bounded like a value. */
  attachment_text: 2_000,
  /** An attachment's URL, stored as given. */
  url: 2_048,
  /** An attachment's media type (`image/jpeg`). */
  mime_type: 100,
} as const;

export type WriteCap = keyof typeof WRITE_CAPS;

/**
 * A decision's or retraction's own words: a reviewer's note, the reason a source was retracted. Not a way memory is
 * written (nothing is extracted from them), so outside WRITE_CAPS' table; every path that takes one holds it here:
 * the review and retraction routes, their MCP tools, and an import's review and retraction lines.
 */
export const DECISION_TEXT_CHARS = 1_000;

const over = (cap: WriteCap, what = "characters") => `at most ${WRITE_CAPS[cap].toLocaleString("en-US")} ${what} (${cap} cap)`;

/** A string field under one of the caps; its message names the cap, so a refusal says which limit it met. */
export const cappedText = (cap: WriteCap) => z.string().max(WRITE_CAPS[cap], over(cap));

const ENTRY = /^[A-Za-z0-9_.-]+=[^=\s][^\s]*$/;

export const ScopeEntry = z
  .string()
  .max(WRITE_CAPS.scope_entry, over("scope_entry"))
  .regex(ENTRY, "each scope entry must look like key=value")
  .refine((entry) => entry.indexOf("=") <= WRITE_CAPS.scope_key, `the key before "=" is ${over("scope_key")}`);

export const ScopeList = z.array(ScopeEntry).max(WRITE_CAPS.scope_entries, over("scope_entries", "entries"));

/** A scope as a map ({"org": "acme"}): the same caps as the list it becomes (its count: withinScopeEntries). */
export const ScopeObject = z
  // The key's length is checked below, not on the key's schema: a record names a bad key only "Invalid key in record".
  .record(
    z.string().regex(/^[A-Za-z0-9_.-]+$/, "scope keys are letters, digits, _ . -"),
    z
      .string()
      .regex(/^[^=\s][^\s]*$/, "must be a non-empty value without spaces")
      .max(WRITE_CAPS.scope_entry, over("scope_entry")),
  )
  .superRefine((scope, ctx) => {
    for (const [key, value] of Object.entries(scope)) {
      if (key.length > WRITE_CAPS.scope_key) ctx.addIssue({ code: "custom", path: [key], message: `the key is ${over("scope_key")}` });
      else if (key.length + 1 + value.length > WRITE_CAPS.scope_entry)
        ctx.addIssue({ code: "custom", path: [key], message: `key=value is ${over("scope_entry")}` });
    }
  });

const jsonLength = (value: unknown): number => JSON.stringify(value)?.length ?? 0;

/** Free-form metadata kept with an input; bounded as a whole, since its shape is the caller's. */
export const Metadata = z
  .record(z.string(), z.unknown())
  .refine((m) => jsonLength(m) <= WRITE_CAPS.metadata, `${over("metadata")} as JSON`);

/** The same bound on metadata of a known shape (a document's, which may carry its scope). */
export const withinMetadataCap = <T extends z.ZodType>(schema: T) =>
  schema.refine((m) => jsonLength(m) <= WRITE_CAPS.metadata, `${over("metadata")} as JSON`);

/**
 * The entry count of a scope in any form (a list, a map, or one entry), checked on the union of the forms rather than
 * in each: a union whose forms all fail answers only "Invalid input", and 33 entries must be told why.
 */
export const withinScopeEntries = <T extends z.ZodType>(forms: T) =>
  forms.refine(
    (scope) =>
      typeof scope === "string" || (Array.isArray(scope) ? scope : Object.keys(scope as object)).length <= WRITE_CAPS.scope_entries,
    { message: over("scope_entries", "entries"), abort: true },
  );

/** A scope in either form a body may use. */
export const ScopeForms = withinScopeEntries(z.union([z.array(ScopeEntry), ScopeObject]));

/** An entity's aliases: each a name, and a few of them. */
export const AliasList = z.array(cappedText("name")).max(WRITE_CAPS.aliases, over("aliases", "aliases"));
