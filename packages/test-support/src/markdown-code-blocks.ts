// The fenced code blocks of the repository's Markdown (README.md and docs/), for the tests that keep
// its examples from drifting: one runs the marked ones against a service, one type-checks or
// compiles every program, one checks the shell variables they use are defined.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";

export interface CodeBlock {
  /** Relative to the repository, e.g. `docs/clients.md`. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word (`ts`, `python`, `sh`), empty when it has none. */
  language: string;
  /** The info string's other words: ```` ```ts fragment ```` marks a block that is not a whole program. */
  flags: string[];
  code: string;
  /** From `<!-- test: name expect="text" -->` on the line before the fence: the block is run against a service. */
  test?: { name: string; expected?: string };
  /** From `<!-- integration: name -->`: an adapter's example, run twice by apps/api/src/e2e/integrations.e2e.test.ts. */
  integration?: string;
}

/** README.md and every docs/*.md, relative to the repository. */
export function documentationFiles(repo: string): string[] {
  const docs = readdirSync(path.join(repo, "docs")).filter((f) => f.endsWith(".md"));
  return ["README.md", ...docs.map((f) => `docs/${f}`)];
}

/** Every fenced block of the repository's documentation files. */
export function documentationCodeBlocks(repo: string): CodeBlock[] {
  return documentationFiles(repo).flatMap((file) => codeBlocks(file, readFileSync(path.join(repo, file), "utf8")));
}

const MARKER = /^<!-- test: (\S+)(?: expect="([^"]*)")? -->$/;
const INTEGRATION = /^<!-- integration: (\S+) -->$/;

/** The fenced blocks of one Markdown file; a test marker not directly followed by a fence is an error, not a skip. */
export function codeBlocks(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split("\n");
  const blocks: CodeBlock[] = [];
  for (let at = 0; at < lines.length; at++) {
    const marker = MARKER.exec(lines[at]!.trim());
    if (marker && !/^```\S/.test(lines[at + 1] ?? "")) throw new Error(`${file}:${at + 1}: "${marker[1]}" must be followed by a fence`);
    const fence = /^(\s*)```(.*)$/.exec(lines[at]!);
    if (!fence) continue;
    const end = lines.findIndex((l, i) => i > at && l.trim() === "```");
    if (end === -1) throw new Error(`${file}:${at + 1}: a fence that is never closed`);
    const [language = "", ...flags] = fence[2]!.trim().split(/\s+/).filter(Boolean);
    const test = MARKER.exec(lines[at - 1]?.trim() ?? "");
    const code = lines.slice(at + 1, end).map((l) => l.slice(fence[1]!.length));
    blocks.push({
      file,
      line: at + 1,
      language,
      flags,
      code: code.join("\n"),
      test: test ? { name: test[1]!, expected: test[2] } : undefined,
      integration: INTEGRATION.exec(lines[at - 1]?.trim() ?? "")?.[1],
    });
    at = end;
  }
  return blocks;
}
