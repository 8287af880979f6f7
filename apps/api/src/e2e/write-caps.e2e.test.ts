// One set of write caps for every way in (issue 42): each write path × each cap of WRITE_CAPS, sent just over the
// cap, is refused naming the field and the cap (HTTP: a 4xx problem; import: a 400 naming the line and field; MCP: a
// tool error). The table is every cap for every path: a cap added to WRITE_CAPS, or a write route or MCP tool added
// to the service, fails here until it is covered here or said, with a reason, not to apply.
import { randomUUID } from "node:crypto";
import request from "supertest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DECISION_TEXT_CHARS, WRITE_CAPS, type WriteCap } from "@recall/contracts";
import { EXPORT_FORMAT, EXPORT_FORMAT_VERSION } from "@recall/memory";
import { registeredRoutes } from "../http/route-inventory";
import { contextClient, createContext, type ContextClient, type ContextHandle } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";
import { listenWithMcp, type McpApp } from "../testing/mcp-app";

const DOCUMENT_MAX_BYTES = 4_096;
/** Below the default so an imported direct write can pass it within one import line's own cap. */
const BODY_LIMIT_BYTES = 512 * 1024;
let h: Harness;
let mcp: McpApp;
let ctx: ContextHandle;
let api: ContextClient;
let agent: Client;
let session: string;
/** Held reviews of a turn in a context with review required, by kind. */
const held: Record<"entity" | "attribute", string> = { entity: "", attribute: "" };

beforeAll(async () => {
  // Small, so an imported document just over it stays a small line.
  h = await startHarness({ RECALL_DOCUMENT_MAX_BYTES: String(DOCUMENT_MAX_BYTES), REQUEST_BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) });
  mcp = await listenWithMcp(h);
  ctx = await createContext(mcp.app, "caps", { review: "required" });
  api = contextClient(mcp.app, ctx);
  session = await api.session();
  await api.turn(session, "I'm Alice Chen, CTO at Acme.", []);
  for (const kind of ["entity", "attribute"] as const) {
    const res = await api.get(`/reviews?kind=${kind}`);
    held[kind] = res.body.reviews[0]?.review_id;
    if (!held[kind]) throw new Error(`no ${kind} review held: ${JSON.stringify(res.body)}`);
  }
  agent = new Client({ name: "caps-test", version: "0.0.0" });
  const url = new URL(`${mcp.baseUrl}/api/v1/${ctx.contextId}/mcp`);
  await agent.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { "API-KEY": ctx.apiKey } } }));
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await mcp?.close();
  await h?.close();
});

/** A string one character over a cap. */
const over = (cap: WriteCap) => "x".repeat(WRITE_CAPS[cap] + 1);

/** Scopes just over each scope cap, in the list form a body and a line carry. */
const OVER_SCOPE: Partial<Record<WriteCap, { scope: string[]; at: string }>> = {
  scope_entries: { scope: Array.from({ length: WRITE_CAPS.scope_entries + 1 }, (_, i) => `k${i}=v`), at: "" },
  scope_entry: { scope: ["org=acme", `user=${over("scope_entry").slice(5)}`], at: ".1" },
  scope_key: { scope: [`${over("scope_key")}=v`], at: ".0" },
};

/** What a path got wrong: an input, and the field (as the path names fields) a refusal must name. */
interface Case {
  input: Record<string, unknown>;
  field: string;
}
/** A cap that cannot be met on a path, and why. */
type NotHere = { na: string };
type Cases = Record<WriteCap, Case | NotHere>;

interface Refusal {
  status: number;
  /** What the refusal says of a field, if it names it. */
  said(field: string): string | undefined;
  /** Everything it said, shown when it does not name the field. */
  all: unknown;
}

interface WritePath {
  /** `METHOD path` of a route, or `mcp tool`, or the import. */
  name: string;
  send(input: Record<string, unknown>): Promise<Refusal>;
  cases: Cases;
}

const scopeCases = (field: string, wrap: (scope: string[]) => Record<string, unknown>) =>
  Object.fromEntries(Object.entries(OVER_SCOPE).map(([cap, s]) => [cap, { input: wrap(s!.scope), field: `${field}${s!.at}` }])) as Pick<
    Cases,
    "scope_entries" | "scope_entry" | "scope_key"
  >;

/** Attachments just over each attachment cap, as a turn (or a turn line) carries them, and the field each names. */
const OVER_ATTACHMENT: Record<"attachments" | "attachment_text" | "url" | "mime_type", { attachments: unknown[]; at: string }> = {
  attachments: { attachments: Array.from({ length: WRITE_CAPS.attachments + 1 }, () => ({ kind: "image" })), at: "" },
  attachment_text: { attachments: [{ kind: "image", caption: over("attachment_text") }], at: ".0.caption" },
  url: { attachments: [{ kind: "link", url: `https://example.com/${over("url").slice(20)}` }], at: ".0.url" },
  mime_type: { attachments: [{ kind: "file", mime_type: `image/${over("mime_type").slice(6)}` }], at: ".0.mime_type" },
};

const attachmentCases = (field: string, wrap: (attachments: unknown[]) => Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(OVER_ATTACHMENT).map(([cap, a]) => [cap, { input: wrap(a.attachments), field: `${field}${a.at}` }]),
  ) as Pick<Cases, keyof typeof OVER_ATTACHMENT>;

/** The attachment cells of a path that takes no turn. */
const noAttachments = (why: string) =>
  Object.fromEntries(Object.keys(OVER_ATTACHMENT).map((cap) => [cap, { na: why }])) as Pick<Cases, keyof typeof OVER_ATTACHMENT>;

const NO_TEXT = "takes no text of this kind: what it teaches comes from extraction, held to the cap by validation (validate.test.ts)";

/** An HTTP refusal: problem details naming each field. */
function problem(res: { status: number; body: { errors?: { field: string; message: string }[] } }): Refusal {
  const named = new Map((res.body.errors ?? []).map((e) => [e.field, e.message]));
  return { status: res.status, said: (field) => named.get(field), all: res.body };
}

const http = async (path: string, body: object) => problem(await api.post(path, body));

/** A tool error is a message, not a list of fields: one of its lines must name the field and the cap. */
async function tool(name: string, args: Record<string, unknown>): Promise<Refusal> {
  const result = (await agent.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  // The SDK's schema check names a field as `… at entities[0].name`, one problem a line; a refusal of the service
  // behind the tool (a review edit's candidate rules) carries the HTTP answer's message, `body.edit.name: …`.
  const at = (field: string) => ` at ${field.replace(/\.(\d+)/g, "[$1]")}`;
  const names = (line: string, field: string) => line.endsWith(at(field)) || line.includes(`body.${field}: `);
  return { status: result.isError ? 400 : 200, said: (field) => text.split("\n").find((l) => names(l, field)), all: text };
}

async function importLine(line: Record<string, unknown>): Promise<Refusal> {
  const header = { kind: "header", format: EXPORT_FORMAT, version: EXPORT_FORMAT_VERSION, context_id: ctx.contextId };
  const body = [header, { id: randomUUID(), ...line }, { kind: "end" }].map((l) => JSON.stringify(l)).join("\n");
  return problem(
    await request(mcp.app)
      .post(`/api/v1/${ctx.contextId}/import`)
      .set("API-KEY", ctx.apiKey)
      .set("Content-Type", "application/x-ndjson")
      .send(body),
  );
}

const turn = (fields: Record<string, unknown>): Record<string, unknown> => ({ role: "user", content: "Hello.", ...fields });
const attribute = (fields: Record<string, unknown>) => ({
  attributes: [{ entity: "Alice", key: "role", value: "CTO", memory_category: "identity", ...fields }],
});
const entity = (fields: Record<string, unknown>) => ({
  entities: [{ name: "Alice", type: "person", memory_category: "identity", ...fields }],
});

/** The cells of a turn, on a path whose turn sits at `at` in the body. */
function turnCases(at: string, wrap: (t: Record<string, unknown>) => Record<string, unknown>): Cases {
  return {
    content: { input: wrap(turn({ content: over("content") })), field: `${at}content` },
    speaker: { input: wrap(turn({ name: over("speaker") })), field: `${at}name` },
    ...scopeCases(`${at}scope`, (scope) => wrap(turn({ scope }))),
    ...attachmentCases(`${at}attachments`, (attachments) => wrap(turn({ attachments }))),
    name: { na: NO_TEXT },
    aliases: { na: NO_TEXT },
    predicate: { na: NO_TEXT },
    value: { na: NO_TEXT },
    quote: { na: NO_TEXT },
    metadata: { na: "a turn has no metadata (its session has: POST …/sessions)" },
    source: { na: "a turn has no source" },
  };
}

function factCases(at: string): Cases {
  return {
    content: { na: "a direct write has no content: its text is written from its items" },
    speaker: { na: "a direct write has no speaker" },
    ...scopeCases(`${at}scope`, (scope) => ({ scope, ...attribute({}) })),
    name: { input: entity({ name: over("name") }), field: `${at}entities.0.name` },
    aliases: {
      input: entity({ aliases: Array.from({ length: WRITE_CAPS.aliases + 1 }, (_, i) => `A${i}`) }),
      field: `${at}entities.0.aliases`,
    },
    predicate: { input: attribute({ key: over("predicate") }), field: `${at}attributes.0.key` },
    value: { input: attribute({ value: over("value") }), field: `${at}attributes.0.value` },
    quote: { input: attribute({ evidence: { quote: over("quote") } }), field: `${at}attributes.0.evidence.quote` },
    metadata: { na: "a direct write has no metadata" },
    source: { na: "a direct write is its own source" },
    ...noAttachments("a direct write has no attachments"),
  };
}

function documentCases(at: string): Cases {
  const doc = (fields: Record<string, unknown>) => ({ text: "Acme makes rockets.", ...fields });
  return {
    content: { na: "a document is capped in bytes by RECALL_DOCUMENT_MAX_BYTES (413; hostile-document.e2e.test.ts)" },
    speaker: { na: "a document has no speaker" },
    ...scopeCases(`${at}scope`, (scope) => doc({ scope })),
    name: { na: NO_TEXT },
    aliases: { na: NO_TEXT },
    predicate: { na: NO_TEXT },
    value: { na: NO_TEXT },
    quote: { na: NO_TEXT },
    metadata: { input: doc({ metadata: { note: over("metadata") } }), field: `${at}metadata` },
    source: { input: doc({ source: { type: "wiki", external_id: over("source") } }), field: `${at}source.external_id` },
    ...noAttachments("a document has no attachments: its text is its source"),
  };
}

/** An edit of a held review: the name on an entity's, the key and value on an attribute's. */
function editCases(at: string): Cases {
  // The held reviews exist once beforeAll ran: the path's send puts the id in.
  const edit = (kind: keyof typeof held, fields: Record<string, string>) => ({ review: kind, edit: fields });
  const na = "an edit changes the candidate's own fields only; the source's text, scope and metadata stay";
  return {
    content: { na },
    speaker: { na },
    scope_entries: { na },
    scope_entry: { na },
    scope_key: { na },
    name: { input: edit("entity", { name: over("name") }), field: `${at}edit.name` },
    aliases: { na: "aliases are not an edited field (EDITABLE_FIELDS)" },
    predicate: { input: edit("attribute", { key: over("predicate") }), field: `${at}edit.key` },
    value: { input: edit("attribute", { value: over("value") }), field: `${at}edit.value` },
    quote: { na: "an edit never changes the quote: it stays what the source said" },
    metadata: { na },
    source: { na },
    ...noAttachments(na),
  };
}

function sessionCases(): Cases {
  const na = { na: "a session holds metadata only; its turns are the turn routes'" };
  const cases = Object.fromEntries(Object.keys(WRITE_CAPS).map((cap) => [cap, na])) as Cases;
  return { ...cases, metadata: { input: { metadata: { note: over("metadata") } }, field: "body.metadata" } };
}

function importCases(): Cases {
  const turnLine = (fields: Record<string, unknown>) => ({
    kind: "turn",
    session_id: randomUUID(),
    seq: 1,
    role: "user",
    content: "Hi.",
    ...fields,
  });
  return {
    content: { input: turnLine({ content: over("content") }), field: "line 2.content" },
    speaker: { input: turnLine({ speaker: over("speaker") }), field: "line 2.speaker" },
    ...scopeCases("line 2.scope", (scope) => turnLine({ scope })),
    ...attachmentCases("line 2.attachments", (attachments) => turnLine({ attachments })),
    name: { input: { kind: "entity", name: over("name"), type: "person" }, field: "line 2.name" },
    aliases: { input: { kind: "entity", name: "A", aliases: Array(WRITE_CAPS.aliases + 1).fill("B") }, field: "line 2.aliases" },
    predicate: { input: { kind: "attribute", key: over("predicate"), value: "v" }, field: "line 2.key" },
    value: { input: { kind: "attribute", key: "role", value: over("value") }, field: "line 2.value" },
    quote: { input: { kind: "assertion", predicate: "role", quote: over("quote") }, field: "line 2.quote" },
    metadata: { input: { kind: "session", metadata: { note: over("metadata") } }, field: "line 2.metadata" },
    source: { input: { kind: "source", type: "wiki", name: over("source") }, field: "line 2.name" },
  };
}

const PATHS: WritePath[] = [
  {
    name: "POST /api/v1/{contextId}/sessions/{sessionId}/turns",
    send: (body) => http(`/sessions/${session}/turns`, body),
    cases: turnCases("body.", (t) => t),
  },
  {
    name: "POST /api/v1/{contextId}/sessions/{sessionId}/turns/batch",
    send: (body) => http(`/sessions/${session}/turns/batch`, body),
    cases: turnCases("body.turns.0.", (t) => ({ turns: [t] })),
  },
  {
    name: "POST /api/v1/{contextId}/sessions",
    send: (body) => http("/sessions", body),
    cases: sessionCases(),
  },
  { name: "POST /api/v1/{contextId}/documents", send: (body) => http("/documents", body), cases: documentCases("body.") },
  { name: "POST /api/v1/{contextId}/facts", send: (body) => http("/facts", body), cases: factCases("body.") },
  {
    name: "POST /api/v1/{contextId}/reviews/{reviewId}/approve",
    send: ({ review, ...body }) => http(`/reviews/${held[review as keyof typeof held]}/approve`, body),
    cases: editCases("body."),
  },
  { name: "POST /api/v1/{contextId}/import", send: importLine, cases: importCases() },
  { name: "mcp remember", send: (args) => tool("remember", { session_id: session, ...args }), cases: turnCases("", (t) => t) },
  { name: "mcp add_document", send: (args) => tool("add_document", args), cases: documentCases("") },
  { name: "mcp write_facts", send: (args) => tool("write_facts", args), cases: factCases("") },
  {
    name: "mcp approve_review",
    send: ({ review, ...args }) => tool("approve_review", { review_id: held[review as keyof typeof held], ...args }),
    cases: editCases(""),
  },
];

/** Write routes and tools that take none of these caps' fields, and why; any other write must be in PATHS. */
const OUTSIDE: Record<string, string> = {
  "POST /api/v1/admin/work-items/extract-again": "queues extraction of stored inputs again: a context id and a flag, no text",
  "POST /api/v1/contexts": "a context's name and config: the admin's, capped by its own schema",
  "POST /api/v1/contexts/{contextId}/config": "a context's config",
  "POST /api/v1/contexts/{contextId}/keys": "issues a key",
  "POST /api/v1/contexts/{contextId}/keys/{keyId}/rotate": "rotates a key",
  "POST /api/v1/contexts/{contextId}/erasure": "erases a context",
  "POST /api/v1/{contextId}/erasures": "ids only (100 per list)",
  "POST /api/v1/{contextId}/context": "a read: the context pack",
  "POST /api/v1/{contextId}/query": "a read (its scope is the reader's: the same ScopeList)",
  "POST /api/v1/{contextId}/state": "a read",
  "POST /api/v1/{contextId}/reviews/{reviewId}/reject": "a decision: its note is capped at 1000",
  "POST /api/v1/{contextId}/reviews/bulk-approve": "decisions without edits",
  "POST /api/v1/{contextId}/reviews/bulk-reject": "decisions without edits",
  "POST /api/v1/{contextId}/webhooks": "a webhook: url and description capped in its schema (docs/limits.md)",
  "POST /api/v1/{contextId}/webhooks/{webhookId}/rotate-secret": "no text",
  "POST /api/v1/{contextId}/webhooks/{webhookId}/enable": "no text",
  "POST /api/v1/{contextId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": "no text",
  "POST /api/v1/{contextId}/work-items/{workItemId}/retry": "no text",
  "POST /api/v1/{contextId}/work-items/retries": "no text",
  "POST /api/v1/{contextId}/work-items/{workItemId}/cancel": "no text",
  "POST /api/v1/admin/work-items/retries": "no text",
  "POST /api/v1/admin/work-items/{workItemId}/retry": "no text",
  "POST /api/v1/admin/work-items/{workItemId}/cancel": "no text",
  "POST /api/v1/{contextId}/turns/{turnId}/retract": "a retraction: its reason is capped at 1000",
  "POST /api/v1/{contextId}/documents/{documentId}/retract": "a retraction: its reason is capped at 1000",
  "POST /api/v1/{contextId}/fact-writes/{factWriteId}/retract": "a retraction: its reason is capped at 1000",
  "mcp forget": "a retraction: its reason is capped at 1000",
  "mcp reject_review": "a decision: its note is capped at 1000",
};

test("every write route and MCP tool is a path of the table or named outside it with a reason", async () => {
  const routes = registeredRoutes(mcp.app)
    .filter((r) => ["post", "put", "patch"].includes(r.method) && !r.path.endsWith("/mcp"))
    .map((r) => `${r.method.toUpperCase()} ${r.path}`);
  const { tools } = await agent.listTools();
  const writes = tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => `mcp ${t.name}`);
  const covered = new Set([...PATHS.map((p) => p.name), ...Object.keys(OUTSIDE)]);
  expect([...routes, ...writes].filter((w) => !covered.has(w))).toEqual([]);
});

test("every path has a cell for every cap, and every cap is met on some path", () => {
  const caps = Object.keys(WRITE_CAPS).sort();
  for (const path of PATHS) expect([path.name, Object.keys(path.cases).sort()]).toEqual([path.name, caps]);
  const met = new Set(
    PATHS.flatMap((p) =>
      Object.entries(p.cases)
        .filter(([, c]) => "input" in c)
        .map(([cap]) => cap),
    ),
  );
  expect(caps.filter((cap) => !met.has(cap))).toEqual([]);
});

const CELLS = PATHS.flatMap((path) =>
  (Object.entries(path.cases) as [WriteCap, Case | NotHere][])
    .filter((cell): cell is [WriteCap, Case] => "input" in cell[1])
    .map(([cap, cell]) => [path.name, cap, path, cell] as const),
);

test.each(CELLS)("%s: just over the %s cap is refused naming the field and the cap", async (_name, cap, path, cell) => {
  const refusal = await path.send(cell.input);
  const said = refusal.said(cell.field);
  expect({ status: refusal.status, field: said === undefined ? refusal.all : cell.field, said }).toEqual({
    status: 400,
    field: cell.field,
    said: expect.stringContaining(`(${cap} cap)`),
  });
});

test("an imported document is held to RECALL_DOCUMENT_MAX_BYTES as POST …/documents is", async () => {
  const refusal = await importLine({ kind: "document", text: "x".repeat(DOCUMENT_MAX_BYTES + 1) });
  expect({ status: refusal.status, said: refusal.said("line 2.text") }).toEqual({
    status: 400,
    said: expect.stringContaining("RECALL_DOCUMENT_MAX_BYTES"),
  });
});

test("the extraction path holds the cap too: nothing longer than a cap was stored by any of it", async () => {
  const [row] = await h.api.db.$queryRaw<{ longest: number | null }[]>`
    SELECT max(length(name)) AS longest FROM entities WHERE context_id = ${ctx.contextId}::uuid`;
  expect(row?.longest ?? 0).toBeLessThanOrEqual(WRITE_CAPS.name);
  expect(await h.api.db.turn.count({ where: { contextId: ctx.contextId, content: { startsWith: "xxx" } } })).toBe(0);
});

test("an imported review's note and edit, a retraction's reason and a direct write are held to what their routes take", async () => {
  const note = "n".repeat(DECISION_TEXT_CHARS + 1);
  const cases: [Record<string, unknown>, string, string][] = [
    [{ kind: "review", note }, "line 2.note", `at most ${DECISION_TEXT_CHARS} characters`],
    [{ kind: "review", edit: { value: { from: "Porto", to: over("value") } } }, "line 2.edit.value.to", "(value cap)"],
    [{ kind: "retraction", reason: note }, "line 2.reason", `at most ${DECISION_TEXT_CHARS} characters`],
    [{ kind: "fact_write", payload: { attributes: [], note: "p".repeat(BODY_LIMIT_BYTES) } }, "line 2.payload", "REQUEST_BODY_LIMIT_BYTES"],
    [{ kind: "fact_write", payload: {}, text: "t".repeat(BODY_LIMIT_BYTES + 1) }, "line 2.text", "REQUEST_BODY_LIMIT_BYTES"],
  ];
  for (const [line, field, says] of cases) {
    const refusal = await importLine(line);
    expect({ line: line.kind, status: refusal.status, said: refusal.said(field) ?? refusal.all }).toEqual({
      line: line.kind,
      status: 400,
      said: expect.stringContaining(says),
    });
  }
});
