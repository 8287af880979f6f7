// PDF text, page by page and paragraph by paragraph, from pdf.js run in a child Node
// process (pdf-text.child.mjs) with a time and memory limit: pdf.js is ESM-only, and a
// hostile or broken file then fails one document rather than the worker.
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { Block } from "./document-types";
import { DocumentParseError } from "./document-types";

export interface PdfOptions {
  timeoutMs: number;
  /** Heap limit of the parsing process. */
  maxHeapMb?: number;
}

export interface PdfText {
  text: string;
  blocks: Block[];
}

/** Pages and paragraphs as extracted text (paragraphs separated by a blank line) and blocks carrying their page. */
export async function pdfText(bytes: Buffer, options: PdfOptions): Promise<PdfText> {
  const pages = await readPages(bytes, options);
  let text = "";
  const blocks: Block[] = [];
  pages.forEach((paragraphs, i) => {
    for (const paragraph of paragraphs) {
      if (text !== "") text += "\n\n";
      blocks.push({ kind: "text", start: text.length, end: text.length + paragraph.length, page: i + 1 });
      text += paragraph;
    }
  });
  return { text, blocks };
}

async function readPages(bytes: Buffer, options: PdfOptions): Promise<string[][]> {
  const args = [`--max-old-space-size=${options.maxHeapMb ?? 512}`, join(__dirname, "pdf-text.child.mjs")];
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"], timeout: options.timeoutMs });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (c: Buffer) => out.push(c));
  child.stderr.on("data", (c: Buffer) => err.push(c));
  child.stdin.on("error", () => undefined); // the child may exit before reading everything; its exit code says why
  child.stdin.end(bytes);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (c, s) => resolve([c, s]));
  });
  if (signal) throw new DocumentParseError(`PDF text extraction stopped (${signal}) after ${options.timeoutMs} ms or out of memory`);
  if (code !== 0)
    throw new DocumentParseError(`not a readable PDF: ${Buffer.concat(err).toString("utf8").slice(0, 300) || `exit ${code}`}`);
  const parsed = JSON.parse(Buffer.concat(out).toString("utf8")) as { pages: string[][] };
  return parsed.pages;
}
