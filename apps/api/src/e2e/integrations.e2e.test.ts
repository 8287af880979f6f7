// docs/integrations.md as a newcomer runs it: each example marked `<!-- integration: name -->` is written out and run
// twice, as two processes, against a real Recall whose agent model is a local server speaking the OpenAI wire
// protocol. The second run must know what the first was told: through memory, not through the process.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { RecallClient } from "@recall/client";
import { runCommand, startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { listen, type Listening } from "../testing/listen";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

const REPO = path.resolve(__dirname, "../../../..");
const PAGE = readFileSync(path.join(REPO, "docs/integrations.md"), "utf8");

/** The ```ts fence after each `<!-- integration: name -->`. */
function example(name: string): string {
  const at = PAGE.indexOf(`<!-- integration: ${name} -->\n\`\`\`ts\n`);
  if (at === -1) throw new Error(`docs/integrations.md has no example "${name}"`);
  const start = PAGE.indexOf("\n", PAGE.indexOf("```ts", at)) + 1;
  return PAGE.slice(start, PAGE.indexOf("\n```", start));
}

let h: Harness;
let llm: FakeLlmServer;
let server: Listening;
const scratch = path.join(REPO, ".scratch/integrations");

beforeAll(async () => {
  llm = await startFakeLlmServer();
  // The service itself runs without a model (its rules read these statements); only the agent's calls reach `llm`.
  h = await startHarness();
  server = await listen(h.app);
  // Each run of this file starts without the files a run before it kept (the LangChain example's session).
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
  writeFileSync(file, example(name));
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

const systemOf = (body: Record<string, unknown>) =>
  ((body.messages as { role: string; content: unknown }[]).find((m) => m.role === "system")?.content as string | undefined) ?? "";

test("AI SDK: the model remembers through the tool in one run; the next run's system prompt holds what it learned", async () => {
  const env = await contextEnv("ai-sdk");
  const told = "I'm Alice, CTO at Acme. Always answer in bullet points.";
  llm.script({ toolCalls: [{ name: "remember", arguments: { content: told } }] }, { raw: "Noted, Alice." });
  const first = await run("ai-sdk-agent", env, [told]);
  expect(first.stdout.trim()).toBe("Noted, Alice.");
  // The tool's answer went back to the model: the turn was committed, with what it taught.
  const toolResult = JSON.stringify(llm.requests.at(-1)!.body.messages);
  expect(toolResult).toContain("committed");
  expect(toolResult).toContain("CTO");

  const asked = llm.requests.length;
  llm.script({ raw: "- You are the CTO of Acme." });
  const second = await run("ai-sdk-agent", env, ["What is my role?"]);
  expect(second.stdout.trim()).toBe("- You are the CTO of Acme.");
  const system = systemOf(llm.requests[asked]!.body);
  expect(system).toContain("You are Alice's assistant.");
  // The role, as the fact or as the turn it was read from (then the fact's line is not written twice: docs/context.md).
  expect(system).toMatch(/Alice: role = CTO|I'm Alice, CTO at Acme/);
  expect(system).toMatch(/bullet points/i);
  // Every tool was offered to the model, under its name.
  expect((llm.requests[asked]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name).sort()).toEqual([
    "forget",
    "recall_context",
    "recall_profile",
    "remember",
  ]);
}, 180_000);

test("LangChain: a conversation kept in a Recall session is read back by the next run, with what it taught", async () => {
  const env = await contextEnv("langchain");
  await run("langchain-history", env, ["I'm Bob, engineer at Initech."]);
  const second = await run("langchain-history", env);
  expect(second.stdout).toContain("human: I'm Bob, engineer at Initech.");
  expect(second.stdout).toMatch(/found \(\w+\): .*Bob/);
  expect(second.stdout).toContain("Bob: role = engineer");
}, 180_000);
