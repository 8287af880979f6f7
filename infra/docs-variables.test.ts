// One spelling of each credential and id the examples use: a shell example in the README or docs/ names the admin
// key, the context or its API key only as the Quickstart defines them (ADMIN, RECALL_CONTEXT_ID, RECALL_API_KEY, and
// the short CTX / KEY), unless the same page defines the variable itself. `$ADMIN_API_KEY` where the Quickstart
// has `$ADMIN` ran as a 401.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";

const root = path.resolve(__dirname, "..");
const PAGES = ["README.md", ...readdirSync(path.join(root, "docs")).map((f) => `docs/${f}`)].filter((f) => f.endsWith(".md"));
const QUICKSTART = new Set(["RECALL_URL", "ADMIN", "RECALL_CONTEXT_ID", "RECALL_API_KEY", "CTX", "KEY", "API", "H", "NEW"]);
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

/** The pages a newcomer copies from: the README, docs/, and the packages' and Python client's READMEs. */
const COPIED = [
  ...PAGES,
  ...readdirSync(path.join(root, "packages")).map((p) => `packages/${p}/README.md`),
  "clients/python/README.md",
].filter((f) => existsSync(path.join(root, f)));
/** An address with the default port written in: the example then fails for anyone whose service is on another. */
const FIXED_PORT = /(?:localhost|127\.0\.0\.1|\[::1\]):8080\b/;

test("no page hard-codes localhost:8080 but the Quickstart's first two lines, which export RECALL_URL", () => {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const quickstart = /<!-- test: quickstart[^\n]*\n```sh\n([^\n]*)\n([^\n]*)\n/.exec(readme);
  expect(quickstart?.[1]).toMatch(/^export RECALL_URL=/);
  const allowed = new Set([quickstart![1], quickstart![2]]);
  const found = COPIED.flatMap((page) =>
    readFileSync(path.join(root, page), "utf8")
      .split("\n")
      .flatMap((line, i) =>
        FIXED_PORT.test(line) && !(page === "README.md" && allowed.has(line)) ? [`${page}:${i + 1}: ${line.trim()}`] : [],
      ),
  );
  expect(found).toEqual([]);
});
