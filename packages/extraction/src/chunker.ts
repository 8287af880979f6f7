// Splits a document into nodes at paragraph boundaries, keeping byte offsets into the
// original text so every node (and every span inside it) maps back to the source.
import { ByteOffsets } from "@recall/contracts";

export interface Chunk {
  ordinal: number;
  text: string;
  start_byte: number;
  end_byte: number;
}

export function chunkText(text: string, maxChars = 4_000): Chunk[] {
  const chunks: Chunk[] = [];
  const bytes = new ByteOffsets(text);
  let start = 0;
  while (start < text.length) {
    const end = chunkEnd(text, start, maxChars);
    const raw = text.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const body = raw.trim();
    if (body.length > 0) {
      const charStart = start + lead;
      chunks.push({ ordinal: chunks.length, text: body, ...bytes.span(charStart, charStart + body.length) });
    }
    start = end;
  }
  return chunks;
}

/** The end of a chunk: the last paragraph break, else sentence end, else space, within maxChars. */
function chunkEnd(text: string, start: number, maxChars: number): number {
  if (text.length - start <= maxChars) return text.length;
  const window = text.slice(start, start + maxChars);
  for (const boundary of [/\n\s*\n/g, /[.!?]\s/g, /\s/g]) {
    let last = -1;
    for (const m of window.matchAll(boundary)) if (m.index > maxChars / 4) last = m.index + m[0].length;
    if (last > 0) return start + last;
  }
  return start + maxChars;
}
