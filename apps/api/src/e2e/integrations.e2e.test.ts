// docs/integrations.md as a newcomer runs it: each example marked `<!-- integration: name -->` is written out and run
// twice, as two processes, against a real Recall whose agent model is a local server speaking the OpenAI wire
// protocol. The second run must know what the first was told: through memory, not through the process.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { RecallClient } from "@recall/client";
import { runCommand, startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { listen, type Listening } from "../testing/listen";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { REPO, integrationExample, systemOf, waitUntilRemembered } from "../testing/integration-examples";

let h: Harness;
let llm: FakeLlmServer;
let server: Listening;
const scratch = path.join(REPO, ".scratch/integrations");

beforeAll(async () => {
  llm = await startFakeLlmServer();
  // The service itself runs without a model (its rules read these statements); only the agent's calls reach `llm`.
  h = await startHarness();
  server = await listen(h.app);
  rmSync(scratch, { recursive: true, force: true });
});

afterAll(async () => {
  await server?.close();
  await h?.close();
  await llm?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs an example as `node --import tsx example.mts [arg]` in a folder of its own (where it may keep a file between runs). */
async function run(name: string, env: NodeJS.ProcessEnv, args: string[] = []) {
  // Inside the repository, so its imports resolve to the workspace's packages (tsconfig paths, the root's node_modules).
  const cwd = path.join(scratch, name);
  mkdirSync(cwd, { recursive: true });
  const file = path.join(cwd, "example.mts");
  writeFileSync(file, integrationExample(name));
  return runCommand(process.execPath, ["--import", "tsx", file, ...args], {
    cwd,
    env: { ...env, TSX_TSCONFIG_PATH: path.join(REPO, "tsconfig.json") },
  });
}

async function contextEnv(name: string): Promise<NodeJS.ProcessEnv> {
  const created = await new RecallClient({ baseUrl: server.url, adminKey: ADMIN_KEY }).admin.contexts.create({ name });
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    RECALL_URL: server.url,
    RECALL_CONTEXT_ID: created.context_id,
    RECALL_API_KEY: created.api_key,
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    OPENAI_API_KEY: "test-openai-key",
    MODEL: "agent-model",
  };
}

test("AI SDK: the wrapped model remembers without calling a tool; the next run's system prompt holds what it was told", async () => {
  const env = await contextEnv("ai-sdk");
  llm.script({ raw: "Noted, Alice." });
  const first = await run("ai-sdk-agent", env, ["I'm Alice, CTO at Acme. Always answer in bullet points."]);
  expect(first.stdout.trim()).toBe("Noted, Alice.");
  // The model was offered no tool and called none: the middleware recorded the exchange.
  expect(llm.requests.at(-1)!.body.tools).toBeUndefined();
  await waitUntilRemembered(env, { user: "alice" }, "role = CTO");

  const asked = llm.requests.length;
  llm.script({ raw: "- You are the CTO of Acme." });
  const second = await run("ai-sdk-agent", env, []);
  expect(second.stdout.trim()).toBe("- You are the CTO of Acme.");
  const system = systemOf(llm.requests[asked]!.body);
  expect(system).toContain("You are Alice's assistant.");
  expect(system).toContain("Alice: role = CTO");
  expect(system).toMatch(/bullet points/i);
  // Both runs' exchanges are turns: run 1's user message and reply, and run 2's.
  const found = await new RecallClient({ baseUrl: server.url, contextId: env.RECALL_CONTEXT_ID, apiKey: env.RECALL_API_KEY }).query({
    query: "Noted Alice",
    scope: { user: "alice" },
    kinds: ["turn"],
  });
  expect(found.results.map((r) => r.text)).toContain("Noted, Alice.");
}, 180_000);

test("LangChain: the chain reads memory through the retriever and keeps the conversation; the next run knows the user", async () => {
  const env = await contextEnv("langchain");
  llm.script({ raw: "Hello Bob." });
  const first = await run("langchain-chain", env, ["I'm Bob, engineer at Initech."]);
  expect(first.stdout.trim()).toBe("Hello Bob.");
  await waitUntilRemembered(env, { user: "bob" }, "role = engineer");

  const asked = llm.requests.length;
  llm.script({ raw: "You are an engineer at Initech." });
  const second = await run("langchain-chain", env, []);
  expect(second.stdout.trim()).toBe("You are an engineer at Initech.");
  const system = systemOf(llm.requests[asked]!.body);
  expect(system).toContain("You are Bob's assistant.");
  expect(system).toContain("Bob: role = engineer");
  expect(system).toMatch(/works_at = Initech|Initech/);
}, 180_000);
