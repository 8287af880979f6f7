// From a stored document (its text, or its original bytes) to its extracted text and
// nodes, along the structure of its format.
import { chunkText } from "../chunker";
import { decodeText } from "./format-detection";
import type { DocumentFormat, ParsedDocument } from "./document-types";
import { htmlToMarkdown } from "./html-to-markdown";
import { markdownBlocks } from "./markdown-blocks";
import { splitBlocks } from "./node-splitter";
import { pdfText, type PdfOptions } from "./pdf-pages";

export interface ParseInput {
  format: DocumentFormat;
  /** The document's text when it is its own extracted text (plain text, Markdown). */
  text?: string;
  /** The original bytes, for formats whose text is extracted (HTML, PDF). */
  bytes?: Buffer;
}

export interface ParseOptions {
  maxChars?: number;
  pdf: PdfOptions;
}

export async function parseDocument(input: ParseInput, options: ParseOptions): Promise<ParsedDocument> {
  const maxChars = options.maxChars ?? 4_000;
  switch (input.format) {
    case "text": {
      const text = input.text ?? decodeText(required(input.bytes));
      const nodes = chunkText(text, maxChars).map((c) => ({ ...c, heading_path: [], page: null }));
      return { text, nodes };
    }
    case "markdown": {
      const text = input.text ?? decodeText(required(input.bytes));
      return { text, nodes: splitBlocks(text, markdownBlocks(text), maxChars) };
    }
    case "html": {
      const text = htmlToMarkdown(input.bytes ? decodeText(input.bytes) : (input.text ?? ""));
      return { text, nodes: splitBlocks(text, markdownBlocks(text), maxChars) };
    }
    case "pdf": {
      const { text, blocks } = await pdfText(required(input.bytes), options.pdf);
      return { text, nodes: splitBlocks(text, blocks, maxChars) };
    }
  }
}

function required(bytes: Buffer | undefined): Buffer {
  if (!bytes) throw new Error("the document's original bytes are missing");
  return bytes;
}
