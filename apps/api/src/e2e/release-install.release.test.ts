// What an adopter does with a release: `pnpm release:pack`, then, in a project of their own outside the repository,
// the install commands of docs/integrations.md with plain npm from the registry, on this Node (20 in CI: there npm
// installs `ai` 6, which the adapter's peer range must take). Then each integration example runs twice from that
// project as plain JavaScript against a real Recall whose model never calls a tool: the second run's prompt must hold
// what the first run said. Slow (npm installs from the network): `pnpm test:release`.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { RecallClient } from "@recall/client";
import { runCommand, startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { INTEGRATIONS_PAGE, REPO, integrationExample, systemOf, waitUntilRemembered } from "../testing/integration-examples";
import { listen, type Listening } from "../testing/listen";

const NPM_ENV = { npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };
const INSTALL_TIMEOUT_MS = 10 * 60_000;

let h: Harness;
let llm: FakeLlmServer;
let server: Listening;
let work: string;
let project: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "recall-release-"));
  const tarballs = path.join(work, "release");
  await runCommand(process.execPath, [path.join(REPO, "scripts/release-pack.mjs"), tarballs], { cwd: REPO, timeoutMs: 5 * 60_000 });
  project = path.join(work, "adopter");
  await runCommand("mkdir", ["-p", project], { cwd: work });
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "adopter", private: true, type: "module" }));
  // The page's install commands, as written, with R pointing at the tarballs.
  for (const command of installCommands()) {
    await runCommand("bash", ["-c", command], {
      cwd: project,
      env: { ...process.env, ...NPM_ENV, R: tarballs },
      timeoutMs: INSTALL_TIMEOUT_MS,
    });
  }
  llm = await startFakeLlmServer();
  h = await startHarness();
  server = await listen(h.app);
}, 15 * 60_000);

afterAll(async () => {
  await server?.close();
  await h?.close();
  await llm?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The `npm install $R/…` lines of docs/integrations.md. */
function installCommands(): string[] {
  const commands = INTEGRATIONS_PAGE.split("\n").filter((line) => line.startsWith("npm install $R/"));
  if (commands.length !== 2) throw new Error(`docs/integrations.md should give two npm install lines, has ${commands.length}`);
  return commands;
}

const installed = (name: string) =>
  JSON.parse(readFileSync(path.join(project, "node_modules", name, "package.json"), "utf8")) as { version: string };

test("npm installs the tarballs with their dependencies resolved, and every peer range holds on this Node", async () => {
  for (const name of ["@recall/client", "@recall/ai-sdk", "@recall/langchain"]) expect(installed(name).version).toBe("0.1.0");
  // ai 7 declares Node 22: on Node 20 npm chooses ai 6, on 22 and later ai 7; either is within @recall/ai-sdk's peer range.
  const node = Number(process.versions.node.split(".")[0]);
  expect(Number(installed("ai").version.split(".")[0])).toBe(node >= 22 ? 7 : 6);
  // `npm ls` exits non-zero on a missing or invalid peer dependency anywhere in the tree.
  await runCommand("npm", ["ls", "--all"], { cwd: project, env: { ...process.env, ...NPM_ENV } });
  expect(readdirSync(path.join(project, "node_modules/@recall")).sort()).toEqual(["ai-sdk", "client", "langchain"]);
});

const CASES = [
  {
    example: "ai-sdk-agent",
    scope: { user: "alice" },
    told: "I'm Alice, CTO at Acme. Always answer in bullet points.",
    fact: "Alice: role = CTO",
    instructions: "You are Alice's assistant.",
  },
  {
    example: "langchain-chain",
    scope: { user: "bob" },
    told: "I'm Bob, engineer at Initech.",
    fact: "Bob: role = engineer",
    instructions: "You are Bob's assistant.",
  },
];

test.each(CASES)(
  "$example runs twice from the npm-installed packages; the second run's prompt holds what the first said",
  async ({ example, scope, told, fact, instructions }) => {
    const created = await new RecallClient({ baseUrl: server.url, adminKey: ADMIN_KEY }).admin.contexts.create({ name: example });
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      RECALL_URL: server.url,
      RECALL_CONTEXT_ID: created.context_id,
      RECALL_API_KEY: created.api_key,
      OPENAI_BASE_URL: llm.openaiBaseUrl,
      OPENAI_API_KEY: "test-openai-key",
      MODEL: "agent-model",
    };
    const file = path.join(project, `${example}.mjs`);
    writeFileSync(file, integrationExample(example));
    const run = (args: string[]) => runCommand(process.execPath, [file, ...args], { cwd: project, env });

    llm.script({ raw: "Noted." });
    expect((await run([told])).stdout.trim()).toBe("Noted.");
    expect(llm.requests.at(-1)!.body.tools).toBeUndefined();
    await waitUntilRemembered(env, scope, fact.replace(/^\w+: /, ""));

    const asked = llm.requests.length;
    llm.script({ raw: "Here is what I know." });
    expect((await run([])).stdout.trim()).toBe("Here is what I know.");
    const system = systemOf(llm.requests[asked]!.body);
    expect(system).toContain(instructions);
    expect(system).toContain(fact);
  },
  180_000,
);
