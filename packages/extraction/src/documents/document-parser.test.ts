import { buildPdf } from "@recall/test-support";
import { sliceBytes } from "@recall/contracts";
import { parseDocument } from "./document-parser";
import { detectFormat } from "./format-detection";

const options = { pdf: { timeoutMs: 20_000 } };

const SPEC = `# Recall

Recall keeps memory.

## Architecture

Workers are stateless.

### Storage

Postgres holds every fact.

| table | holds |
|---|---|
| facts | attributes |

\`\`\`sql
SELECT 1;

SELECT 2;
\`\`\`

## Operating

Run \`pnpm start\`.
`;

test("Markdown nodes follow sections, carry their heading path, and slice back to the text", async () => {
  const parsed = await parseDocument({ format: "markdown", text: SPEC }, options);
  expect(parsed.text).toBe(SPEC);
  expect(parsed.nodes.map((n) => n.heading_path)).toEqual([
    ["Recall"],
    ["Recall", "Architecture"],
    ["Recall", "Architecture", "Storage"],
    ["Recall", "Operating"],
  ]);
  const storage = parsed.nodes[2]!;
  expect(storage.text).toContain("| facts | attributes |");
  expect(storage.text).toContain("SELECT 1;\n\nSELECT 2;");
  for (const node of parsed.nodes) expect(sliceBytes(parsed.text, node)).toBe(node.text);
});

test("a long section is cut at sentence ends, a code block stays whole", async () => {
  const sentence = (i: number) => `Sentence number ${i} says the café in Zürich opens early. `;
  const code = "```\n" + "line of code\n".repeat(40) + "```";
  const text = `# Long\n\n${Array.from({ length: 30 }, (_, i) => sentence(i)).join("")}\n\n${code}\n`;
  const parsed = await parseDocument({ format: "markdown", text }, { ...options, maxChars: 500 });
  expect(parsed.nodes.length).toBeGreaterThan(3);
  for (const node of parsed.nodes) {
    expect(node.heading_path).toEqual(["Long"]);
    expect(sliceBytes(parsed.text, node)).toBe(node.text);
    if (!node.text.startsWith("```")) expect(node.text).toMatch(/(early\.|^# Long)$/);
  }
  expect(parsed.nodes.some((n) => n.text === code)).toBe(true);
});

test("HTML: the main content becomes Markdown under the page title, navigation and scripts are gone", async () => {
  const html = `<!doctype html><html><head><title>Acme Handbook</title><script>var x = 1;</script></head><body>
    <nav><a href="/">Home</a> <a href="/jobs">Jobs</a></nav>
    <article><h1>Acme Handbook</h1><h2>People</h2><p>Alice Chen is the CTO of Acme. She has led the platform group since 2021 and
    reports to the board every quarter about the storage roadmap and its costs.</p>
    <h2>Storage</h2><p>Acme keeps every customer record in Postgres, replicated across two regions, with nightly backups kept for a year.</p>
    <table><tr><th>system</th><th>owner</th></tr><tr><td>Postgres</td><td>Alice</td></tr></table></article>
    <footer>© Acme</footer></body></html>`;
  const parsed = await parseDocument({ format: "html", bytes: Buffer.from(html) }, options);
  expect(parsed.text).not.toMatch(/Jobs|var x|© Acme/);
  const paths = parsed.nodes.map((n) => n.heading_path.join(" › "));
  expect(paths).toEqual(["Acme Handbook › People", "Acme Handbook › Storage"]);
  expect(parsed.nodes[0]!.text).toMatch(/^# Acme Handbook\n\n## People\n\nAlice Chen/);
  expect(parsed.nodes[1]!.text).toContain("| Postgres | Alice |");
});

test("PDF: nodes per page and paragraph, with their page number", async () => {
  const pdf = buildPdf([
    ["Quarterly report of Acme.", "", "Alice Chen is the CTO of Acme."],
    ["Page two starts here.", "It continues on this line.", "", "Bob Stone is the CFO of Acme."],
  ]);
  const parsed = await parseDocument({ format: "pdf", bytes: pdf }, options);
  expect(parsed.text).toBe(
    "Quarterly report of Acme.\n\nAlice Chen is the CTO of Acme.\n\nPage two starts here. It continues on this line.\n\nBob Stone is the CFO of Acme.",
  );
  expect(parsed.nodes.map((n) => [n.page, n.text.split("\n\n").length])).toEqual([
    [1, 2],
    [2, 2],
  ]);
  await expect(parseDocument({ format: "pdf", bytes: Buffer.from("%PDF-1.4 garbage") }, options)).rejects.toThrow(/not a readable PDF/);
});

test("the format is checked against the bytes", () => {
  const pdf = buildPdf([["x"]]);
  expect(detectFormat({ mediaType: "text/plain", fileName: "report.txt", bytes: pdf })).toEqual({ ok: true, format: "pdf" });
  expect(detectFormat({ mediaType: "application/octet-stream", fileName: "spec.md", bytes: Buffer.from("# A") })).toEqual({
    ok: true,
    format: "markdown",
  });
  expect(detectFormat({ mediaType: "text/plain", bytes: Buffer.from("<!DOCTYPE html><html></html>") })).toEqual({
    ok: true,
    format: "html",
  });
  expect(detectFormat({ mediaType: "application/pdf", bytes: Buffer.from("hello") })).toMatchObject({ ok: false });
  expect(detectFormat({ mediaType: "text/plain", bytes: Buffer.from([0xff, 0xfe, 0x00, 0x41]) })).toMatchObject({ ok: false });
  expect(detectFormat({ mediaType: "image/png", bytes: Buffer.from("x") })).toEqual({
    ok: false,
    reason: 'unsupported media type "image/png"',
  });
});
