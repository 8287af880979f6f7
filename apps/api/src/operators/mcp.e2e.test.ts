// The MCP endpoint driven by the SDK's own client over Streamable HTTP, against the app
// listening on an ephemeral port with the real workers, Postgres and Redis.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { waitFor } from "@recall/test-support";
import { createApp } from "../app";
import { MCP_PATH, mcpEndpoint } from "./mcp-server";
import { contextClient, createContext, type ContextHandle } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";

let h: Harness;
let server: Server;
let baseUrl: string;
let acme: ContextHandle;
let other: ContextHandle;
const clients: Client[] = [];

beforeAll(async () => {
  h = await startHarness();
  const app = createApp(h.api, { extras: [[MCP_PATH, mcpEndpoint(h.api)]] });
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, () => resolve(listening));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  acme = await createContext(app, "acme");
  other = await createContext(app, "other");
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  // fetch keeps its sockets alive; close them so the server (and this worker) can stop.
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

async function connect(contextId: string, apiKey?: string): Promise<Client> {
  const headers: Record<string, string> = apiKey ? { "API-KEY": apiKey } : {};
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/v1/${contextId}/mcp`), { requestInit: { headers } });
  const client = new Client({ name: "recall-test", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

test("tools/list shows the reading, agent and operator tools", async () => {
  const client = await connect(acme.contextId, acme.apiKey);
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual([
    "forget",
    "get_doc_pipeline_status",
    "get_instructions",
    "get_profile",
    "get_state",
    "list_failed_work_items",
    "query_memory",
    "remember",
    "retry_work_item",
  ]);
  expect(tools.find((t) => t.name === "query_memory")?.inputSchema.required).toEqual(["query", "scope"]);
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
  expect(JSON.parse(textOf(result)).state).toBe("committed");
});

test("an unknown document is a tool error, not a transport error", async () => {
  const client = await connect(acme.contextId, acme.apiKey);
  const unknown = "00000000-0000-4000-8000-000000000000";
  const result = await client.callTool({ name: "get_doc_pipeline_status", arguments: { document_id: unknown } });
  expect(result.isError).toBe(true);
  expect(textOf(result)).toBe(`document ${unknown} not found in this context`);
});

test("get_profile and query_memory answer what GET /profile and POST /query answer", async () => {
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
});

test("a key of another context answers 404, a missing key 401, to the transport", async () => {
  await expect(connect(acme.contextId, other.apiKey)).rejects.toMatchObject({ constructor: StreamableHTTPError, code: 404 });
  await expect(connect(acme.contextId)).rejects.toMatchObject({ constructor: StreamableHTTPError, code: 401 });
  await expect(connect(acme.contextId, "rk_wrong")).rejects.toMatchObject({ code: 401 });
});

const call = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return JSON.parse(textOf(result));
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

test("list_failed_work_items and retry_work_item: a turn that needs a model none is set for fails, is listed and retried", async () => {
  const client = await connect(other.contextId, other.apiKey);
  const turn = await call(client, "remember", {
    role: "user",
    content: "Priya's team owns the payments gateway, which runs on Kubernetes.",
    scope: [],
  });
  expect(turn.extraction).toMatchObject({ status: "failed", error_class: "no_provider" });
  const listed = await call(client, "list_failed_work_items", {});
  expect(listed.work_items).toEqual([
    expect.objectContaining({ work_item_id: turn.extraction.work_item_id, error: expect.objectContaining({ class: "no_provider" }) }),
  ]);
  expect((await call(client, "list_failed_work_items", { error_class: ["budget"] })).work_items).toEqual([]);
  const retried = await call(client, "retry_work_item", { work_item_id: turn.extraction.work_item_id });
  expect(retried).toMatchObject({ status: "queued" });
  const api = contextClient(h.app, other);
  const again = await waitFor(async () => {
    const res = await api.get(`/work-items/${turn.extraction.work_item_id}`);
    return res.body.status === "dead" && res.body.attempts === 2 ? res.body : undefined;
  });
  expect(again.attempt_records.map((a: { error: { class: string } }) => a.error.class)).toEqual(["no_provider", "no_provider"]);
  const foreign = await connect(acme.contextId, acme.apiKey);
  const refused = await foreign.callTool({ name: "retry_work_item", arguments: { work_item_id: turn.extraction.work_item_id } });
  expect(refused.isError).toBe(true);
});
