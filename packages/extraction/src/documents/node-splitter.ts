// Packs structural blocks into nodes: a heading starts a new node and extends the heading
// path, a page break (PDF) ends one, and blocks of one section share a node while it stays
// under the size limit. Code blocks and tables are kept whole; a paragraph too long for
// one node is cut at sentence boundaries (compromise, given bounded slices), so no sentence is
// split in two.
import nlp from "compromise";
import { ByteOffsets } from "@recall/contracts";
import { boundedSlices } from "./bounded-slices";
import type { Block, DocumentNodeDraft } from "./document-types";

/** A code block or table is split (at line ends) only past this many times the node size. */
const WHOLE_BLOCK_FACTOR = 4;

interface Section {
  path: string[];
  page: number | null;
  start: number;
  end: number;
  /** Only headings so far: the next heading joins this node instead of leaving a title alone in one. */
  headingsOnly: boolean;
}

interface Heading {
  depth: number;
  title: string;
}

export function splitBlocks(text: string, blocks: readonly Block[], maxChars = 4_000): DocumentNodeDraft[] {
  const pieces: Section[] = [];
  const headings: Heading[] = [];
  let current: Section | undefined;
  const flush = () => {
    if (current) pieces.push(current);
    current = undefined;
  };
  for (const block of blocks) {
    const page = block.page ?? null;
    if (block.kind === "heading") {
      if (!current?.headingsOnly) flush();
      while (headings.length > 0 && headings.at(-1)!.depth >= (block.depth ?? 1)) headings.pop();
      headings.push({ depth: block.depth ?? 1, title: block.title ?? text.slice(block.start, block.end).trim() });
    }
    if (current && (current.page !== page || block.end - current.start > maxChars)) flush();
    const path = headings.map((h) => h.title);
    const headingsOnly = block.kind === "heading";
    for (const part of cutBlock(text, block, maxChars)) {
      if (current && part.end - current.start > maxChars) flush();
      if (current)
        Object.assign(current, { end: part.end, headingsOnly: current.headingsOnly && headingsOnly }, headingsOnly ? { path } : {});
      else current = { path, page, start: part.start, end: part.end, headingsOnly };
    }
  }
  flush();
  const bytes = new ByteOffsets(text);
  return pieces.flatMap((p) => toDraft(text, bytes, p)).map((node, ordinal) => ({ ...node, ordinal }));
}

function toDraft(text: string, bytes: ByteOffsets, section: Section): Omit<DocumentNodeDraft, "ordinal">[] {
  const raw = text.slice(section.start, section.end);
  const lead = raw.length - raw.trimStart().length;
  const body = raw.trim();
  if (body === "") return [];
  const start = section.start + lead;
  return [{ text: body, ...bytes.span(start, start + body.length), heading_path: section.path, page: section.page }];
}

/** The block as one part, or cut into parts no longer than maxChars where its kind allows. */
function cutBlock(text: string, block: Block, maxChars: number): { start: number; end: number }[] {
  const length = block.end - block.start;
  if (length <= maxChars) return [block];
  const whole = block.kind === "code" || block.kind === "table";
  if (whole && length <= maxChars * WHOLE_BLOCK_FACTOR) return [block];
  const cuts = whole ? lineEnds(text, block) : sentenceEnds(text, block);
  return pack(text, block, cuts, maxChars);
}

/** Groups consecutive cut points into parts of at most maxChars; a longer single piece is cut at spaces. */
function pack(text: string, block: Block, cuts: number[], maxChars: number): { start: number; end: number }[] {
  const parts: { start: number; end: number }[] = [];
  let start = block.start;
  let last = block.start;
  for (const cut of [...cuts, block.end]) {
    if (cut - start > maxChars && last > start) {
      parts.push({ start, end: last });
      start = last;
    }
    last = cut;
  }
  parts.push({ start, end: block.end });
  return parts.flatMap((p) => (p.end - p.start > maxChars ? cutAtSpaces(text, p, maxChars) : [p]));
}

/** The last resort for a sentence or line longer than a node: the last whitespace inside each window. */
function cutAtSpaces(text: string, part: { start: number; end: number }, maxChars: number): { start: number; end: number }[] {
  return boundedSlices(text, part.start, part.end, maxChars);
}

/**
 * Sentence ends inside the block, read by compromise one bounded slice at a time (each slice
 * ends at a sentence end or whitespace, so a slice boundary is a fair cut point too).
 */
function sentenceEnds(text: string, block: Block): number[] {
  return boundedSlices(text, block.start, block.end)
    .flatMap((span) => {
      const sentences = nlp(text.slice(span.start, span.end)).json({ offset: true }) as { offset: { start: number; length: number } }[];
      const ends = sentences.map((s) => span.start + s.offset.start + s.offset.length);
      return [...ends.filter((end) => end < span.end), span.end];
    })
    .filter((end) => end < block.end);
}

function lineEnds(text: string, block: Block): number[] {
  const ends: number[] = [];
  for (let at = text.indexOf("\n", block.start); at >= 0 && at < block.end; at = text.indexOf("\n", at + 1)) ends.push(at + 1);
  return ends;
}
