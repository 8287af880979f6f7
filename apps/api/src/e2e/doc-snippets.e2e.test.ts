// The examples in the README and docs/ run against the real service, so an example that drifts from
// the API fails here. An example is a ```sh, ```ts or ```python fence on the line after
// `<!-- test: name -->` (optionally `expect="text"`: the output must contain it). Each runs as written, in a new
// context, with RECALL_URL set to this test's server (on a port of its own, never 8080: the pages must not name a
// port), the admin key in .data/admin-api-key of its working folder, and RECALL_CONTEXT_ID / RECALL_API_KEY (also
// CTX / KEY) in its environment.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { RecallClient } from "@recall/client";
import { documentationCodeBlocks, runCommand, startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { listen, type Listening } from "../testing/listen";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

const REPO = path.resolve(__dirname, "../../../..");
const NO_FACTS = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
const LANGUAGES = ["sh", "ts", "python"] as const;

interface Snippet {
  file: string;
  name: string;
  language: (typeof LANGUAGES)[number];
  code: string;
  expected?: string;
}

/** The marked blocks; a marker on a block of another language is an error, not a skip. */
const SNIPPETS: Snippet[] = documentationCodeBlocks(REPO).flatMap((block) => {
  if (!block.test) return [];
  const language = LANGUAGES.find((l) => l === block.language);
  if (!language) throw new Error(`${block.file}:${block.line}: "${block.test.name}" must be a \`\`\`${LANGUAGES.join(" / ")} fence`);
  return [{ file: block.file, name: block.test.name, language, code: block.code, expected: block.test.expected }];
});

let h: Harness;
let llm: FakeLlmServer;
let server: Listening;
let work: string;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  llm.respondWith(() => ({ json: NO_FACTS }));
  h = await startHarness({ RECALL_FAST_MODEL: "openai-compatible:test-fast", OPENAI_BASE_URL: llm.openaiBaseUrl });
  server = await listen(h.app);
  work = mkdtempSync(path.join(os.tmpdir(), "recall-doc-snippets-"));
  mkdirSync(path.join(work, ".data"));
  writeFileSync(path.join(work, ".data/admin-api-key"), ADMIN_KEY);
});

afterAll(async () => {
  await server?.close();
  await h?.close();
  await llm?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the README's quickstart and the clients' examples in every language are marked to run", () => {
  expect(SNIPPETS.map((s) => `${s.file} ${s.name} ${s.language}`)).toEqual(
    expect.arrayContaining([
      "README.md quickstart sh",
      "docs/clients.md clients-ts ts",
      "docs/clients.md clients-python python",
      "docs/clients.md clients-curl sh",
    ]),
  );
  expect(new Set(SNIPPETS.map((s) => s.name)).size).toBe(SNIPPETS.length);
});

test.each(SNIPPETS.map((s) => [`${s.file}: ${s.name}`, s] as const))(
  "%s runs against the service",
  async (_title, snippet) => {
    const created = await new RecallClient({ baseUrl: server.url, adminKey: ADMIN_KEY }).admin.contexts.create({ name: snippet.name });
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      RECALL_URL: server.url,
      RECALL_CONTEXT_ID: created.context_id,
      RECALL_API_KEY: created.api_key,
      CTX: created.context_id,
      KEY: created.api_key,
    };
    const run = await runSnippet(snippet.language, snippet.name, snippet.code, env);
    if (snippet.expected !== undefined) expect(run.stdout).toContain(snippet.expected);
    // What the page says the example prints (`# → …`) is what it prints, less the parts it elides with "…".
    const missing = notPrinted(snippet.code, run.stdout);
    // On a mismatch the failure shows what was printed, to correct the page by.
    expect({ snippet: snippet.name, missing, ...(missing.length > 0 ? { printed: run.stdout } : {}) }).toEqual({
      snippet: snippet.name,
      missing: [],
    });
  },
  120_000,
);

/**
 * The documented output lines of a shell example (`# → text`, continued on `#   text` lines) that its run did not
 * print: each line's parts between "…" must appear in the output, in order.
 */
function notPrinted(code: string, stdout: string): string[] {
  const documented: string[] = [];
  let continuing = false;
  for (const line of code.split("\n")) {
    const arrow = /# → (.*)$/.exec(line);
    const more = /^\s*#\s{2,}(\S.*)$/.exec(line);
    if (arrow) documented.push(arrow[1]!);
    else if (continuing && more) documented.push(more[1]!);
    continuing = Boolean(arrow) || (continuing && Boolean(more));
  }
  return documented.filter((line) => {
    let from = 0;
    for (const part of line
      .split("…")
      .map((p) => p.trim())
      .filter((p) => p.length > 0)) {
      const at = stdout.indexOf(part, from);
      if (at === -1) return true;
      from = at + part.length;
    }
    return false;
  });
}

async function runSnippet(language: Snippet["language"], name: string, code: string, env: NodeJS.ProcessEnv) {
  if (language === "sh") {
    writeFileSync(path.join(work, `${name}.sh`), code);
    return runCommand("bash", ["-eo", "pipefail", `${name}.sh`], { cwd: work, env });
  }
  if (language === "python") {
    writeFileSync(path.join(work, `${name}.py`), code);
    return runCommand("python3", [`${name}.py`], { cwd: work, env: { ...env, PYTHONPATH: path.join(REPO, "clients/python") } });
  }
  // TypeScript runs inside the repository, where @recall/client resolves to the workspace's client (tsconfig paths).
  const dir = path.join(REPO, ".scratch/doc-snippets");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.mts`);
  writeFileSync(file, code);
  try {
    return await runCommand(process.execPath, ["--import", "tsx", file], { cwd: REPO, env });
  } finally {
    rmSync(file, { force: true });
  }
}
