// Markdown's top-level blocks (headings, paragraphs, lists, quotes, fenced code, tables)
// with their character offsets, read with markdown-it (CommonMark plus GFM tables). Its
// tokens carry source line ranges; those are turned into offsets into the same string.
// Only the block structure is parsed: inline markup is read for headings' titles alone, from a
// bounded slice, so a megabyte paragraph costs one linear pass.
import MarkdownIt from "markdown-it";
import type { Block, BlockKind } from "./document-types";

const parser = new MarkdownIt("default", { html: true });
parser.core.ruler.disable(["inline", "linkify", "replacements", "smartquotes", "text_join"]);
const titleParser = new MarkdownIt("default", { html: true });

/** A heading's title is read from at most this much of its line. */
const MAX_TITLE_SOURCE = 1_000;

type Token = MarkdownIt.Token;

const KIND: Record<string, BlockKind> = {
  heading_open: "heading",
  fence: "code",
  code_block: "code",
  table_open: "table",
};

export function markdownBlocks(text: string): Block[] {
  const lineStarts = lineStartsOf(text);
  const at = (line: number) => lineStarts[line] ?? text.length;
  const tokens = parser.parse(text, {});
  const blocks: Block[] = [];
  tokens.forEach((token, i) => {
    if (token.level !== 0 || !token.map || token.nesting === -1) return;
    const start = at(token.map[0]);
    const end = trimEnd(text, start, at(token.map[1]));
    if (end <= start) return;
    const kind = KIND[token.type] ?? "text";
    blocks.push(
      kind === "heading"
        ? { kind, start, end, depth: Number(token.tag.slice(1)), title: headingTitle(tokens[i + 1]) }
        : { kind, start, end },
    );
  });
  return blocks;
}

function headingTitle(inline: Token | undefined): string {
  const source = (inline?.content ?? "").slice(0, MAX_TITLE_SOURCE);
  const [paragraph] = titleParser.parseInline(source, {});
  return (paragraph?.children ?? [])
    .filter((t) => t.type === "text" || t.type === "code_inline")
    .map((t) => t.content)
    .join("")
    .trim();
}

/** Where each line starts; markdown-it counts lines the same way (CR, LF or CRLF end one). */
function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (const m of text.matchAll(/\r\n?|\n/g)) starts.push(m.index + m[0].length);
  return starts;
}

function trimEnd(text: string, start: number, end: number): number {
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return end;
}
