// What a parsed document is made of: its extracted text (what every node and byte span
// points into) and the structural blocks found in it, before they are packed into nodes.
import { InputError } from "@recall/contracts";

export const DOCUMENT_FORMATS = ["text", "markdown", "html", "pdf"] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

export type BlockKind = "heading" | "text" | "code" | "table";

/** One structural unit, by JavaScript character offsets into the extracted text. */
export interface Block {
  kind: BlockKind;
  start: number;
  end: number;
  /** Heading level (1–6), for headings. */
  depth?: number;
  /** The heading's words, for headings. */
  title?: string;
  /** 1-based page, for PDF. */
  page?: number;
}

/** A node as stored: a slice of the extracted text, with where it sits in the document's structure. */
export interface DocumentNodeDraft {
  ordinal: number;
  text: string;
  start_byte: number;
  end_byte: number;
  /** Headings above the node, outermost first: ["Architecture", "Storage"]. */
  heading_path: string[];
  page: number | null;
}

export interface ParsedDocument {
  /** The extracted text; for Markdown and plain text, the document itself. */
  text: string;
  nodes: DocumentNodeDraft[];
}

/** The separator provenance answers and readers show between heading levels. */
export const HEADING_SEPARATOR = " › ";

/** A document that cannot be read as its format (a broken PDF, bytes that are not text): retrying does not help. */
export class DocumentParseError extends InputError {
  override name = "DocumentParseError";
}
