// The MCP tools as a strict client reads them (MCP Inspector --strict, a model provider's strict tool mode): every
// tool declares its output, no schema uses a list of types (`type: ["string", "null"]`), inputs refuse unknown keys,
// and an unknown argument is named in the error. Both endpoints, listed over Streamable HTTP by the SDK's client.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createContext, type ContextHandle } from "../testing/api-client";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { listenWithMcp, type McpApp } from "../testing/mcp-app";

let h: Harness;
let mcp: McpApp;
let baseUrl: string;
let acme: ContextHandle;
const clients: Client[] = [];

beforeAll(async () => {
  h = await startHarness();
  mcp = await listenWithMcp(h);
  baseUrl = mcp.baseUrl;
  acme = await createContext(mcp.app, "strict");
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await mcp?.close();
  await h?.close();
});

async function connect(path: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "strict-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}${path}`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}
const agent = () => connect(`/api/v1/${acme.contextId}/mcp`, { "API-KEY": acme.apiKey });
const operator = () => connect("/api/v1/admin/mcp", { Authorization: `Bearer ${ADMIN_KEY}` });

/** Where a JSON Schema breaks a strict client's rules, by path. */
function strictFaults(schema: unknown, at: string): string[] {
  if (!schema || typeof schema !== "object") return [];
  const node = schema as Record<string, unknown>;
  const faults: string[] = [];
  if (Array.isArray(node.type)) faults.push(`${at}: type is a list (${JSON.stringify(node.type)})`);
  // `metadata` is free-form by design (any keys the caller keeps with an input).
  const freeForm = at.endsWith(".metadata");
  if (node.type === "object" && node.properties && node.additionalProperties !== false && !freeForm)
    faults.push(`${at}: takes unknown keys`);
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && value && typeof value === "object")
      for (const [name, child] of Object.entries(value)) faults.push(...strictFaults(child, `${at}.${name}`));
    else if (Array.isArray(value)) value.forEach((child, i) => faults.push(...strictFaults(child, `${at}.${key}[${i}]`)));
    else if (typeof value === "object") faults.push(...strictFaults(value, `${at}.${key}`));
  }
  return faults;
}

test.each([
  ["agent", agent],
  ["operator", operator],
])("every %s tool declares its output, and no input or output schema breaks a strict client's rules", async (_who, open) => {
  const { tools } = await (await open()).listTools();
  expect(tools.length).toBeGreaterThan(0);
  const faults = tools.flatMap((tool) => [
    ...(tool.outputSchema ? [] : [`${tool.name}: no outputSchema`]),
    ...strictFaults(tool.inputSchema, `${tool.name}.input`),
    ...strictFaults(tool.outputSchema, `${tool.name}.output`),
  ]);
  expect(faults).toEqual([]);
});

test("an unknown argument is named in the error, not reported as a missing one", async () => {
  const client = await agent();
  const result = (await client.callTool({ name: "remember", arguments: { role: "user", contnet: "I'm Alice." } })) as CallToolResult;
  expect(result.isError).toBe(true);
  expect(JSON.stringify(result.content)).toContain("contnet");
});

test("add_document and write_facts store through the same services as the HTTP routes", async () => {
  const client = await agent();
  const doc = (await client.callTool({
    name: "add_document",
    arguments: { text: "Osprey is the ledger service.", scope: ["org=acme"] },
  })) as CallToolResult;
  expect(doc.isError).toBeFalsy();
  const documentId = (doc.structuredContent as { document_id: string }).document_id;
  expect(await h.api.db.document.count({ where: { id: documentId, contextId: acme.contextId } })).toBe(1);
  const facts = (await client.callTool({
    name: "write_facts",
    arguments: { scope: ["org=acme"], attributes: [{ entity: "Osprey", key: "owner", value: "Priya", memory_category: "knowledge" }] },
  })) as CallToolResult;
  expect(facts.isError).toBeFalsy();
  expect(facts.structuredContent).toMatchObject({ committed: { attribute_ids: [expect.any(String)] } });
});
