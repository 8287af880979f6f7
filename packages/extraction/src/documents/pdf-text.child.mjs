// Runs in its own Node process (see pdf-pages.ts): reads a PDF from stdin and writes
// {"pages": [["paragraph", …], …]} to stdout. pdf.js is ESM-only, and an untrusted
// file is better parsed where a hang or a memory blow-up cannot take the worker down.
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";

/** A vertical gap this many line heights wide starts a new paragraph. */
const PARAGRAPH_GAP = 1.5;

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return new Uint8Array(Buffer.concat(chunks));
}

/** Text items in reading order become lines (an end-of-line mark or a jump in y), lines become paragraphs. */
function paragraphsOf(items) {
  const paragraphs = [];
  let lines = [];
  let line = "";
  let lastY;
  let lastHeight = 0;
  const endLine = () => {
    if (line.trim() !== "") lines.push(line.trim());
    line = "";
  };
  const endParagraph = () => {
    endLine();
    if (lines.length > 0) paragraphs.push(lines.join(" ").replace(/\s+/g, " "));
    lines = [];
  };
  for (const item of items) {
    if (typeof item.str !== "string") continue;
    const y = item.transform[5];
    const height = item.height || lastHeight || 12;
    if (lastY !== undefined && Math.abs(lastY - y) > height * PARAGRAPH_GAP) endParagraph();
    else if (lastY !== undefined && Math.abs(lastY - y) > height / 2) endLine();
    line += item.str;
    if (item.hasEOL) endLine();
    if (item.str.trim() !== "") [lastY, lastHeight] = [y, height];
  }
  endParagraph();
  return paragraphs;
}

async function main() {
  const data = await readStdin();
  const pdf = await getDocument({ data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  const pages = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    pages.push(paragraphsOf((await page.getTextContent()).items));
    page.cleanup();
  }
  await pdf.destroy();
  process.stdout.write(JSON.stringify({ pages }));
}

main().catch((err) => {
  process.stderr.write(String(err?.message ?? err));
  process.exit(2);
});
