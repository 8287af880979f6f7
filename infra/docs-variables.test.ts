// One spelling of each credential and id the examples use: a shell example in the README or docs/ names the admin
// key, the context or its API key only as the Quickstart defines them (ADMIN, RECALL_CONTEXT_ID, RECALL_API_KEY, and
// the short CTX / KEY), unless the same page defines the variable itself. `$ADMIN_API_KEY` where the Quickstart
// has `$ADMIN` ran as a 401.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";

const root = path.resolve(__dirname, "..");
const PAGES = ["README.md", ...readdirSync(path.join(root, "docs")).map((f) => `docs/${f}`)].filter((f) => f.endsWith(".md"));
const QUICKSTART = new Set(["ADMIN", "RECALL_CONTEXT_ID", "RECALL_API_KEY", "CTX", "KEY", "API", "H", "NEW"]);
/** What names a credential or a context, where a second spelling would silently be empty. */
const CREDENTIAL = /ADMIN|API_KEY|CONTEXT|^KEY$|^CTX$/;

function drifted(page: string): string[] {
  const text = readFileSync(path.join(root, page), "utf8");
  const defined = new Set([...text.matchAll(/(?:^|[\s;(])(?:export\s+)?([A-Za-z_]\w*)=/gm)].map((m) => m[1]!));
  const blocks = [...text.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const used = blocks.flatMap((block) => [...block.matchAll(/\$\{?([A-Za-z_]\w*)/g)].map((m) => m[1]!));
  return [...new Set(used)].filter((v) => CREDENTIAL.test(v) && !QUICKSTART.has(v) && !defined.has(v)).map((v) => `${page}: $${v}`);
}

test("shell examples name the admin key, the context and its key as the Quickstart does", () => {
  const quickstart = readFileSync(path.join(root, "README.md"), "utf8");
  for (const name of QUICKSTART) expect({ name, defined: new RegExp(`\\b${name}=`).test(quickstart) }).toEqual({ name, defined: true });
  expect(PAGES.flatMap(drifted)).toEqual([]);
});
