// recallMiddleware through the real AI SDK and its OpenAI-compatible provider (the model a local server speaking
// the wire protocol) against a real Recall: a tool loop records the user's message once and each reply, under
// idempotency keys; with Recall refusing connections or never answering, the call still answers, without memory,
// within the timeout, and says why.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { RecallClient } from "@recall/client";
import { runCommand, startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { REPO, systemOf } from "../testing/integration-examples";
import { listen, type Listening } from "../testing/listen";

// `ai` is an ES module Jest cannot load here: the calls run in a child process (node --import tsx), as an app makes them.
const PROBE = `
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, tool, wrapLanguageModel } from "ai";
import { z } from "zod";
import { recallMiddleware, systemWithMemory } from "@recall/ai-sdk";
import { RecallClient } from "@recall/client";

const options = JSON.parse(process.env.PROBE!);
const warnings: string[] = [];
if (options.systemWithMemory) {
  const { client, call } = options.systemWithMemory;
  const began = Date.now();
  const text = await systemWithMemory({ client: new RecallClient(client), ...call, onWarning: (message: string) => warnings.push(message) });
  console.log(JSON.stringify({ text, warnings, ms: Date.now() - began }));
  process.exit(0);
}
const model = wrapLanguageModel({
  model: createOpenAICompatible({ name: "llm", baseURL: process.env.OPENAI_BASE_URL!, apiKey: "k" })("agent-model"),
  middleware: recallMiddleware({ ...options.middleware, onWarning: (message: string) => warnings.push(message) }),
});
const clock = tool({ description: "the time", inputSchema: z.object({}), execute: async () => "noon" });
const started = Date.now();
const { text } = await generateText({
  model,
  prompt: options.prompt,
  ...(options.system ? { system: options.system } : {}),
  ...(options.tools ? { tools: { clock }, stopWhen: stepCountIs(3) } : {}),
});
console.log(JSON.stringify({ text, warnings, ms: Date.now() - started }));
`;
const scratch = path.join(REPO, ".scratch/ai-sdk-middleware");

async function probe(options: {
  middleware?: Record<string, unknown>;
  prompt?: string;
  system?: string;
  tools?: boolean;
  systemWithMemory?: { client: Record<string, unknown>; call: Record<string, unknown> };
}) {
  mkdirSync(scratch, { recursive: true });
  const file = path.join(scratch, "probe.mts");
  writeFileSync(file, PROBE);
  const run = await runCommand(process.execPath, ["--import", "tsx", file], {
    cwd: scratch,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      OPENAI_BASE_URL: llm.openaiBaseUrl,
      PROBE: JSON.stringify(options),
      TSX_TSCONFIG_PATH: path.join(REPO, "tsconfig.json"),
    },
  });
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { text: string; warnings: string[]; ms: number };
}

/** Runs `check` against a Recall that refuses connections (a closed port), then one that accepts and never answers. */
async function eachRecallDown(check: (baseUrl: string) => Promise<void>): Promise<void> {
  const silent = http.createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const refusing = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  try {
    for (const baseUrl of [refusing, `http://127.0.0.1:${(silent.address() as AddressInfo).port}`]) await check(baseUrl);
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
}

let h: Harness;
let llm: FakeLlmServer;
let server: Listening;
let recall: RecallClient;
let apiKey: string;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness();
  server = await listen(h.app);
  const created = await new RecallClient({ baseUrl: server.url, adminKey: ADMIN_KEY }).admin.contexts.create({ name: "middleware" });
  apiKey = created.api_key;
  recall = new RecallClient({ baseUrl: server.url, contextId: created.context_id, apiKey });
});

afterAll(async () => {
  await server?.close();
  await h?.close();
  await llm?.close();
  rmSync(scratch, { recursive: true, force: true });
});

test("a tool loop records the user's message once and the reply; the next call's system prompt holds what was said", async () => {
  const { session_id } = await recall.sessions.create();
  const connection = { baseUrl: server.url, contextId: recall.contextId, apiKey };
  llm.script({ toolCalls: [{ name: "clock", arguments: {} }] }, { raw: "It is noon, Carol." });
  const { text } = await probe({
    middleware: { ...connection, sessionId: session_id, scope: { user: "carol" }, userName: "Carol" },
    prompt: "I'm Carol, a pilot at Skyways. What time is it?",
    tools: true,
  });
  expect(text).toBe("It is noon, Carol.");
  const turns = await waitFor(async () => {
    const page = await recall.turns.list(session_id, { scope: { user: "carol" } });
    return page.turns.length >= 2 && page.turns;
  });
  expect(turns.map((t) => [t.role, t.content])).toEqual([
    ["user", "I'm Carol, a pilot at Skyways. What time is it?"],
    ["assistant", "It is noon, Carol."],
  ]);

  await waitFor(async () => (await recall.context({ message: "what is my job?", scope: { user: "carol" } })).text.includes("pilot"));
  const asked = llm.requests.length;
  llm.script({ raw: "You fly for Skyways." });
  await probe({
    middleware: { ...connection, sessionId: (await recall.sessions.create()).session_id, scope: { user: "carol" } },
    system: "Be brief.",
    prompt: "What is my job?",
  });
  const system = systemOf(llm.requests[asked]!.body);
  expect(system.startsWith("Be brief.\n\n")).toBe(true);
  expect(system).toMatch(/Carol: (occupation|role|job\w*) = pilot|I'm Carol, a pilot/);
}, 120_000);

test("with Recall refusing connections or never answering, the call answers without memory within the timeout, with warnings", async () => {
  await eachRecallDown(async (baseUrl) => {
    const asked = llm.requests.length;
    llm.script({ raw: "Still here." });
    const { text, warnings, ms } = await probe({
      middleware: {
        baseUrl,
        contextId: "00000000-0000-4000-8000-000000000000",
        apiKey: "rk_down",
        sessionId: "00000000-0000-4000-8000-000000000001",
        timeoutMs: 500,
      },
      prompt: "Hello?",
    });
    expect(text).toBe("Still here.");
    // Three Recall calls, each given up after 500 ms at most.
    expect(ms).toBeLessThan(5_000);
    expect(systemOf(llm.requests[asked]!.body)).toBe("");
    expect(warnings).toEqual([
      "no memory for this call: /context failed",
      "the user's turn was not recorded",
      "the assistant's turn was not recorded",
    ]);
  });
}, 60_000);

test("systemWithMemory with Recall refusing or silent answers the instructions alone within its timeout, with a warning", async () => {
  await eachRecallDown(async (baseUrl) => {
    const { text, warnings, ms } = await probe({
      systemWithMemory: {
        client: { baseUrl, contextId: "00000000-0000-4000-8000-000000000000", apiKey: "rk_down" },
        call: { scope: { user: "alice" }, message: "What do you know about me?", instructions: "Be brief.", timeoutMs: 500 },
      },
    });
    expect({ text, warnings }).toEqual({ text: "Be brief.", warnings: ["no memory for this call: /context failed"] });
    expect(ms).toBeLessThan(5_000);
  });
}, 60_000);
