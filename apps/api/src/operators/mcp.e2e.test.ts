// The MCP endpoint driven by the SDK's own client over Streamable HTTP, against the app
// listening on an ephemeral port with the real workers, Postgres and Redis.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { waitFor } from "@recall/test-support";
import { contextClient, createContext, type ContextHandle } from "../testing/api-client";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { listenWithMcp, type McpApp } from "../testing/mcp-app";

let h: Harness;
let mcp: McpApp;
let baseUrl: string;
let acme: ContextHandle;
let other: ContextHandle;
const clients: Client[] = [];

beforeAll(async () => {
  h = await startHarness();
  mcp = await listenWithMcp(h);
  baseUrl = mcp.baseUrl;
  acme = await createContext(mcp.app, "acme");
  other = await createContext(mcp.app, "other");
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await mcp?.close();
  await h?.close();
});

/** Lists the tools once connected: the SDK client then checks every structuredContent against its tool's outputSchema. */
async function open(transport: Transport): Promise<Client> {
  const client = new Client({ name: "recall-test", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  await client.listTools();
  return client;
}

const overHttp = (url: string, headers: Record<string, string>) =>
  open(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
const connect = (contextId: string, apiKey?: string) => overHttp(`${baseUrl}/api/v1/${contextId}/mcp`, apiKey ? { "API-KEY": apiKey } : {});
const connectAdmin = (headers: Record<string, string>) => overHttp(`${baseUrl}/api/v1/admin/mcp`, headers);

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

const READ_TOOLS = [
  "get_context",
  "get_doc_pipeline_status",
  "get_entity_history",
  "get_instructions",
  "get_profile",
  "get_provenance",
  "get_state",
  "get_turn_status",
  "list_reviews",
  "query_memory",
];

test("tools/list shows the agent's tools, each annotated, the read ones with output schemas; the server teaches the loop", async () => {
  const client = await connect(acme.contextId, acme.apiKey);
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(
    [...READ_TOOLS, "add_document", "approve_review", "forget", "reject_review", "remember", "write_facts"].sort(),
  );
  for (const tool of tools) {
    const hints = tool.annotations ?? {};
    const expected = {
      readOnlyHint: READ_TOOLS.includes(tool.name),
      destructiveHint: tool.name === "forget",
      idempotentHint: !["remember", "add_document", "write_facts"].includes(tool.name),
      openWorldHint: false,
    };
    expect({ tool: tool.name, hints }).toEqual({ tool: tool.name, hints: expected });
    expect({ tool: tool.name, titled: Boolean(tool.title), described: (tool.description ?? "").length > 40 }).toEqual({
      tool: tool.name,
      titled: true,
      described: true,
    });
    if (READ_TOOLS.includes(tool.name))
      expect({ tool: tool.name, output: tool.outputSchema?.type }).toEqual({ tool: tool.name, output: "object" });
  }
  expect(tools.find((t) => t.name === "query_memory")?.inputSchema.required).toEqual(["query"]);
  const instructions = client.getInstructions() ?? "";
  for (const step of [
    "get_context",
    "get_profile",
    "system prompt",
    "remember",
    "query_memory",
    "forget",
    "get_turn_status",
    "list_reviews",
    "approve_review",
    "reject_review",
  ]) {
    expect(instructions).toContain(step);
  }
});

test("get_doc_pipeline_status answers what GET …/documents/{id}/status answers", async () => {
  const api = contextClient(h.app, acme);
  const posted = await api.post("/documents", { text: "Alice Chen is the CTO of Acme." });
  expect(posted.status).toBe(202);
  const documentId: string = posted.body.document_id;
  const status = await waitFor(
    async () => {
      const res = await api.get(`/documents/${documentId}/status`);
      return ["committed", "failed"].includes(res.body.state) && res.body;
    },
    { what: "the document to finish" },
  );
  const client = await connect(acme.contextId, acme.apiKey);
  const result = await client.callTool({ name: "get_doc_pipeline_status", arguments: { document_id: documentId } });
  expect(result.isError).toBeFalsy();
  expect(JSON.parse(textOf(result))).toEqual(status);
  expect(result.structuredContent).toEqual(status);
  expect(JSON.parse(textOf(result)).state).toBe("committed");
});

test("an unknown document is a tool error, not a transport error", async () => {
  const client = await connect(acme.contextId, acme.apiKey);
  const unknown = "00000000-0000-4000-8000-000000000000";
  const result = await client.callTool({ name: "get_doc_pipeline_status", arguments: { document_id: unknown } });
  expect(result.isError).toBe(true);
  expect(textOf(result)).toBe(`document ${unknown} not found in this context`);
});

test("get_profile, query_memory and get_context answer what GET /profile, POST /query and POST /context answer", async () => {
  const api = contextClient(h.app, acme);
  const scope = ["org=acme", "user=alice"];
  const turn = await api.turn(await api.session(), "I'm Alice, CTO at Acme. Always respond in bullet points.", scope);
  expect(turn.extraction.status).toBe("committed");
  const client = await connect(acme.contextId, acme.apiKey);
  const profile = JSON.parse(textOf(await client.callTool({ name: "get_profile", arguments: { scope } })));
  expect(profile.entities.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(["Alice", "Acme"]));
  const httpProfile = await api.get("/profile?scope[org]=acme&scope[user]=alice");
  expect(profile).toEqual({ entities: httpProfile.body.entities, instructions: httpProfile.body.instructions });
  const query = { query: "what does Alice do at Acme", scope, limit: 5 };
  const viaMcp = JSON.parse(textOf(await client.callTool({ name: "query_memory", arguments: query })));
  const viaHttp = await api.post("/query", query);
  expect(viaMcp.results.length).toBeGreaterThan(0);
  expect(viaMcp.results).toEqual(viaHttp.body.results);

  // scope as an object, as HTTP bodies take it: the same answers.
  const asObject = { org: "acme", user: "alice" };
  expect(JSON.parse(textOf(await client.callTool({ name: "get_profile", arguments: { scope: asObject } })))).toEqual(profile);
  const byObject = await client.callTool({ name: "query_memory", arguments: { ...query, scope: asObject } });
  expect((byObject.structuredContent as { results: unknown[] }).results).toEqual(viaHttp.body.results);
  const state = await client.callTool({ name: "get_state", arguments: { scope: asObject } });
  expect(state.structuredContent).toMatchObject({ facts: (await api.post("/state", { scope: asObject })).body.facts });
  const packed = { message: "what does Alice do at Acme", scope: asObject, max_tokens: 300 };
  const context = await call(client, "get_context", packed);
  expect(context).toEqual((await api.post("/context", packed)).body);
  expect(context.sections.instructions.map((i: { description: string }) => i.description)).toContain("Always respond in bullet points");
  const refused = await client.callTool({ name: "get_profile", arguments: { scope: { org: "has space" } } });
  expect(refused.isError).toBe(true);
  // `role` is required, as docs/mcp.md says: refused naming the field.
  const roleless = await client.callTool({ name: "remember", arguments: { content: "I'm Alice.", scope: asObject } });
  expect({ isError: roleless.isError, text: textOf(roleless) }).toEqual({ isError: true, text: expect.stringMatching(/role/) });
});

test("a key of another context answers 404, a missing key 401, to the transport", async () => {
  await expect(connect(acme.contextId, other.apiKey)).rejects.toMatchObject({ constructor: StreamableHTTPError, code: 404 });
  await expect(connect(acme.contextId)).rejects.toMatchObject({ constructor: StreamableHTTPError, code: 401 });
  await expect(connect(acme.contextId, "rk_wrong")).rejects.toMatchObject({ code: 401 });
});

/** A tool's answer; where it has an output schema, the SDK client has already checked structuredContent against it. */
const call = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  const parsed = JSON.parse(textOf(result));
  if (result.structuredContent !== undefined) expect(result.structuredContent).toEqual(parsed);
  return parsed;
};

test("remember posts turns, get_state and get_instructions agree with /state and GET /instructions, forget retracts", async () => {
  const api = contextClient(h.app, acme);
  const client = await connect(acme.contextId, acme.apiKey);
  const scope = ["org=acme", "user=priya"];
  const first = await call(client, "remember", {
    role: "user",
    content: "I'm Priya, CTO at Acme. Always respond in bullet points.",
    scope,
  });
  expect(first).toMatchObject({ session_id: expect.any(String), extraction: { status: "committed" } });
  const active = (await api.get("/instructions?scope[org]=acme&scope[user]=priya")).body.instructions;
  const stated = (await api.post("/state", { scope })).body.instructions;
  expect(active.map((i: { id: string }) => i.id)).toEqual(stated.map((i: { id: string }) => i.id));
  expect(active).toEqual([expect.objectContaining({ active: true, revoked_at: null, given_at: stated[0].created_at })]);
  const revoking = await call(client, "remember", {
    session_id: first.session_id,
    role: "user",
    content: "Stop using bullet points.",
    scope,
  });
  expect(revoking.extraction.status).toBe("committed");

  const viaMcp = await call(client, "get_instructions", { scope, include_revoked: true });
  const viaHttp = await api.get("/instructions?scope[org]=acme&scope[user]=priya&include_revoked=true");
  expect(viaMcp).toEqual(viaHttp.body);
  expect(viaHttp.body.instructions).toEqual([
    expect.objectContaining({
      description: expect.stringMatching(/bullet points/i),
      active: false,
      given_by: { turn_id: first.turn_id, document_id: null, fact_write_id: null },
      revoked_at: expect.any(String),
      revoked_by_turn_id: revoking.turn_id,
    }),
  ]);
  expect((await api.get("/instructions?scope[org]=acme&scope[user]=priya")).body.instructions).toEqual([]);
  expect((await api.get("/instructions?scope[org]=acme")).body.instructions).toEqual([]);

  const state = await call(client, "get_state", { scope });
  const httpState = await api.post("/state", { scope });
  expect(state).toEqual({ ...httpState.body, as_of: expect.any(String) });
  expect(state.instructions).toEqual([]);
  expect(state.facts.length).toBeGreaterThan(0);

  const forgotten = await call(client, "forget", { source_type: "turn", source_id: first.turn_id, reason: "asked to forget" });
  expect(forgotten).toMatchObject({ source_type: "turn", source_id: first.turn_id });
  expect(forgotten.retracted.attributes + forgotten.retracted.relations).toBeGreaterThan(0);
  expect((await call(client, "get_state", { scope })).facts).toEqual([]);
  const unknown = await client.callTool({ name: "forget", arguments: { source_type: "turn", source_id: other.contextId, reason: "x" } });
  expect(unknown.isError).toBe(true);
});

test("get_provenance, get_entity_history and get_turn_status answer what their HTTP routes answer", async () => {
  const api = contextClient(h.app, acme);
  const client = await connect(acme.contextId, acme.apiKey);
  const scope = ["org=acme", "user=lena"];
  const turn = await call(client, "remember", { role: "user", content: "I'm Lena, CTO at Acme.", scope });
  expect(turn.extraction.status).toBe("committed");
  // Facts written without a scope (the document of another test) are visible here too: find this turn's.
  const facts = (await call(client, "get_state", { scope })).facts;
  const sources = await Promise.all(
    facts.map((f: { id: string }) => call(client, "get_provenance", { fact_id: f.id, scope: { org: "acme", user: "lena" } })),
  );
  const mine = sources.findIndex((p) => p.source?.id === turn.turn_id);
  expect(mine).toBeGreaterThanOrEqual(0);
  const [fact, provenance] = [facts[mine], sources[mine]];
  expect(provenance.source).toMatchObject({ type: "turn", id: turn.turn_id, session_id: turn.session_id });
  expect(provenance.span.quote.length).toBeGreaterThan(0);
  expect(provenance).toEqual((await api.get(`/facts/${fact.id}/provenance?scope[org]=acme&scope[user]=lena`)).body);

  const entityId = fact.kind === "attribute" ? fact.entity.id : fact.subject.id;
  const history = await call(client, "get_entity_history", { entity_id: entityId, scope });
  expect(history.values.length).toBeGreaterThan(0);
  expect(history).toEqual((await api.get(`/entities/${entityId}/history?scope[org]=acme&scope[user]=lena`)).body);

  const status = await call(client, "get_turn_status", { session_id: turn.session_id, turn_id: turn.turn_id });
  expect(status).toEqual((await api.get(`/sessions/${turn.session_id}/turns/${turn.turn_id}/status`)).body);
  expect(status.extraction.status).toBe("committed");

  const later = await call(client, "remember", {
    session_id: turn.session_id,
    role: "user",
    content: "Always respond in bullet points.",
    scope,
    wait: false,
  });
  expect(later.extraction).toEqual({ status: "pending" });
  const settled = await waitFor(
    async () => {
      const now = await call(client, "get_turn_status", { session_id: turn.session_id, turn_id: later.turn_id });
      return now.extraction.status !== "pending" && now;
    },
    { what: "the wait: false turn to settle" },
  );
  expect(settled).toEqual((await api.get(`/sessions/${turn.session_id}/turns/${later.turn_id}/status`)).body);

  const unknown = "00000000-0000-4000-8000-000000000000";
  for (const [name, args] of [
    ["get_provenance", { fact_id: unknown, scope }],
    ["get_entity_history", { entity_id: unknown, scope }],
    ["get_turn_status", { session_id: turn.session_id, turn_id: unknown }],
  ] as const) {
    const result = await client.callTool({ name, arguments: args });
    expect({ name, isError: result.isError, text: textOf(result) }).toEqual({
      name,
      isError: true,
      text: expect.stringContaining("not found"),
    });
  }
});

test("review required: a turn's candidates are held, list_reviews lists them as GET /reviews does, approve_review commits one edited, reject_review drops one", async () => {
  const reviewed = await createContext(h.app, "reviewed", { review: "required" });
  const api = contextClient(h.app, reviewed);
  const client = await connect(reviewed.contextId, reviewed.apiKey);
  const scope = ["org=acme", "user=omar"];
  const turn = await call(client, "remember", { role: "user", content: "I'm Omar, CTO at Acme. Always respond in bullet points.", scope });
  expect(turn.extraction).toMatchObject({ status: "pending_review", pending_reviews: expect.any(Number) });

  const listed = await call(client, "list_reviews", { turn_id: turn.turn_id });
  expect(listed.reviews.length).toBe(turn.extraction.pending_reviews);
  expect(listed).toEqual((await api.get(`/reviews?turn_id=${turn.turn_id}`)).body);
  for (const r of listed.reviews) {
    expect(r).toMatchObject({ status: "pending", source: { type: "turn", turn_id: turn.turn_id, session_id: turn.session_id } });
  }
  const role = listed.reviews.find((r: { kind: string }) => r.kind === "attribute");
  const instruction = listed.reviews.find((r: { kind: string }) => r.kind === "instruction");
  expect([role?.kind, instruction?.kind]).toEqual(["attribute", "instruction"]);
  // A page at a time: the cursor goes on from the first review.
  const first = await call(client, "list_reviews", { turn_id: turn.turn_id, limit: 1 });
  expect(first.reviews).toEqual([listed.reviews[0]]);
  const rest = await call(client, "list_reviews", { turn_id: turn.turn_id, cursor: first.next_cursor });
  expect(rest.reviews).toEqual(listed.reviews.slice(1));
  expect((await call(client, "get_profile", { scope })).entities).toEqual([]);

  const approved = await call(client, "approve_review", {
    review_id: role.review_id,
    edit: { value: "Chief Technology Officer" },
    note: "spelled out",
  });
  expect(approved).toMatchObject({
    review_id: role.review_id,
    status: "approved",
    note: "spelled out",
    edit: { value: { from: role.candidate.value, to: "Chief Technology Officer" } },
  });
  const rejected = await call(client, "reject_review", { review_id: instruction.review_id, note: "not a standing rule" });
  expect(rejected).toMatchObject({ review_id: instruction.review_id, status: "rejected", note: "not a standing rule" });
  expect((await api.get(`/reviews/${instruction.review_id}`)).body).toEqual(rejected);

  await waitFor(async () => (await api.get(`/reviews/${role.review_id}`)).body.status === "committed", { what: "the approval to commit" });
  const profile = JSON.stringify(await call(client, "get_profile", { scope }));
  expect(profile).toContain("Chief Technology Officer");
  expect(profile).not.toMatch(/bullet/i);
  expect((await call(client, "list_reviews", { status: "rejected" })).reviews.map((r: { review_id: string }) => r.review_id)).toEqual([
    instruction.review_id,
  ]);

  // Refusals are tool errors with the HTTP API's messages: the opposite decision, a blank edit, another context's review.
  const refusals: [string, Record<string, unknown>, RegExp][] = [
    ["approve_review", { review_id: instruction.review_id }, /rejected; it cannot be approved/],
    ["reject_review", { review_id: role.review_id }, /cannot be rejected/],
    ["approve_review", { review_id: crypto.randomUUID() }, /review not found/],
    ["list_reviews", { status: "held" }, /status/],
  ];
  for (const [name, args, message] of refusals) {
    const result = await client.callTool({ name, arguments: args });
    expect({ name, isError: result.isError, text: textOf(result) }).toEqual({ name, isError: true, text: expect.stringMatching(message) });
  }
  const elsewhere = await connect(acme.contextId, acme.apiKey);
  const foreign = await elsewhere.callTool({ name: "reject_review", arguments: { review_id: instruction.review_id } });
  expect({ isError: foreign.isError, text: textOf(foreign) }).toEqual({ isError: true, text: "review not found" });
  expect((await call(elsewhere, "list_reviews", {})).reviews).toEqual([]);
});

test("operator tools are only on the admin endpoint, which needs the admin key", async () => {
  const agent = await connect(other.contextId, other.apiKey);
  const refused = await agent.callTool({ name: "retry_work_item", arguments: { work_item_id: crypto.randomUUID() } });
  expect(refused.isError).toBe(true);
  expect(textOf(refused)).toMatch(/not found/i);
  await expect(connectAdmin({})).rejects.toMatchObject({ constructor: StreamableHTTPError, code: 401 });
  await expect(connectAdmin({ "API-KEY": other.apiKey })).rejects.toMatchObject({ code: 401 });
  await expect(connectAdmin({ Authorization: `Bearer ${other.apiKey}` })).rejects.toMatchObject({ code: 401 });
  const admin = await connectAdmin({ Authorization: `Bearer ${ADMIN_KEY}` });
  const { tools } = await admin.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(["extract_again", "get_work_item", "list_failed_work_items", "retry_work_item"]);
  for (const tool of tools) {
    expect(tool.annotations).toMatchObject({
      openWorldHint: false,
      destructiveHint: false,
      readOnlyHint: !["retry_work_item", "extract_again"].includes(tool.name),
    });
    expect(tool.outputSchema?.type).toBe("object");
  }
});

test("list_failed_work_items, get_work_item, retry_work_item and extract_again: a turn that needs a model none is set for awaits one, not listed as failed", async () => {
  const agent = await connect(other.contextId, other.apiKey);
  const turn = await call(agent, "remember", {
    role: "user",
    content: "Priya's team owns the payments gateway, which runs on Kubernetes.",
    scope: [],
  });
  expect(turn.extraction).toMatchObject({ status: "awaiting_model" });
  const workItemId = turn.extraction.awaiting_model.work_item_id;
  const admin = await connectAdmin({ Authorization: `Bearer ${ADMIN_KEY}` });
  // Not a failure: the failed list does not show it.
  expect((await call(admin, "list_failed_work_items", { context_id: other.contextId })).work_items).toEqual([]);
  const acmes = (await call(admin, "list_failed_work_items", { context_id: acme.contextId })).work_items;
  expect(acmes.filter((i: { context_id: string }) => i.context_id !== acme.contextId)).toEqual([]);
  const everywhere = (await call(admin, "list_failed_work_items", {})).work_items;
  expect(everywhere.map((i: { work_item_id: string }) => i.work_item_id)).not.toContain(workItemId);
  const detail = await call(admin, "get_work_item", { work_item_id: workItemId });
  expect(detail).toMatchObject({ status: "awaiting_model", error: null });
  // extract_again: a dry run counts it; a real run needs a model first.
  const dry = await call(admin, "extract_again", { context_id: other.contextId, dry_run: true });
  expect(dry).toMatchObject({ matched: 1, inputs: 1, model_calls: { windows: 1 }, estimate: { model: null } });
  const refused = await admin.callTool({ name: "extract_again", arguments: { context_id: other.contextId } });
  expect(refused.isError).toBe(true);
  const retried = await call(admin, "retry_work_item", { work_item_id: workItemId });
  expect(retried).toMatchObject({ status: "queued" });
  const api = contextClient(h.app, other);
  const again = await waitFor(async () => {
    const res = await api.get(`/work-items/${workItemId}`);
    return res.body.status === "awaiting_model" && res.body.attempts === 2 ? res.body : undefined;
  });
  expect(again.attempt_records.map((a: { status: string }) => a.status)).toEqual(["awaiting_model", "awaiting_model"]);
  const unknown = await admin.callTool({ name: "retry_work_item", arguments: { work_item_id: crypto.randomUUID() } });
  expect(unknown.isError).toBe(true);
});

describe("docs/mcp.md's configuration snippets", () => {
  interface ServerConfig {
    type?: string;
    url?: string;
    headers?: Record<string, string>;
    command?: string;
    args?: string[];
    env?: Record<string, string>;
  }
  const page = readFileSync(path.resolve(__dirname, "../../../../docs/mcp.md"), "utf8");
  const configs = [...page.matchAll(/```json\n([\s\S]*?)\n```/g)].map(
    (m) => (JSON.parse(m[1]!) as { mcpServers?: Record<string, ServerConfig> }).mcpServers ?? {},
  );
  const find = (name: string, test: (c: ServerConfig) => boolean) => {
    const found = configs.map((c) => c[name]).find((c): c is ServerConfig => c !== undefined && test(c));
    if (!found) throw new Error(`docs/mcp.md has no ${name} snippet of that kind`);
    return found;
  };
  /** What a user fills in: the address the service listens on, their context id; `${VAR}`s from `vars`. */
  const fill = (text: string, vars: Record<string, string> = {}) =>
    text
      .replace("<RECALL_URL>", baseUrl)
      .replace("<CONTEXT_ID>", acme.contextId)
      .replace(/\$\{(\w+)\}/g, (whole, name: string) => vars[name] ?? whole);

  test("the header configuration connects with the SDK client, and the admin one reaches the operator tools", async () => {
    const agent = find("recall", (c) => c.type === "http");
    const client = await overHttp(
      fill(agent.url!),
      Object.fromEntries(Object.entries(agent.headers!).map(([k, v]) => [k, fill(v, { RECALL_API_KEY: acme.apiKey })])),
    );
    expect((await client.callTool({ name: "get_profile", arguments: { scope: [] } })).isError).toBeFalsy();
    const operator = find("recall-admin", (c) => c.type === "http");
    const headers = Object.fromEntries(Object.entries(operator.headers!).map(([k, v]) => [k, fill(v, { ADMIN_API_KEY: ADMIN_KEY })]));
    const admin = await overHttp(fill(operator.url!), headers);
    expect((await admin.listTools()).tools.map((t) => t.name)).toContain("retry_work_item");
  });

  test("the mcp-remote configuration works through mcp-remote itself (installed, not fetched by npx)", async () => {
    const bridged = find("recall", (c) => c.command === "npx");
    const [yes, bridge, url, ...rest] = bridged.args!;
    expect([yes, bridge]).toEqual(["-y", "mcp-remote"]);
    expect(rest).toEqual(["--header", "API-KEY:${RECALL_API_KEY}"]);
    const proxy = path.join(path.dirname(require.resolve("mcp-remote/package.json")), "dist/proxy.js");
    const configDir = mkdtempSync(path.join(tmpdir(), "mcp-remote-"));
    try {
      const transport = new StdioClientTransport({
        command: process.execPath,
        // The header argument exactly as documented: mcp-remote fills ${RECALL_API_KEY} from its environment.
        args: [proxy, fill(url!), ...rest],
        env: { ...getDefaultEnvironment(), ...bridged.env, RECALL_API_KEY: acme.apiKey, MCP_REMOTE_CONFIG_DIR: configDir },
        stderr: "pipe",
      });
      const client = await open(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["get_profile", "remember", "forget"]));
      const profile = await client.callTool({ name: "get_profile", arguments: { scope: { org: "acme" } } });
      expect(profile.isError).toBeFalsy();
      await client.close();
    } finally {
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});
