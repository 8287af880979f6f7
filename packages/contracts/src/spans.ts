// Evidence spans are UTF-8 byte offsets into the source text, so they stay valid
// for any client regardless of its string encoding.

export interface ByteSpan {
  start_byte: number;
  end_byte: number;
}

/** Byte span of text.slice(charStart, charEnd) (JavaScript string indices). */
export function byteSpanOf(text: string, charStart: number, charEnd: number): ByteSpan {
  const start = Buffer.byteLength(text.slice(0, charStart), "utf8");
  return { start_byte: start, end_byte: start + Buffer.byteLength(text.slice(charStart, charEnd), "utf8") };
}

/**
 * Byte offsets of ever-later character offsets into one text, counted in one pass: byteSpanOf
 * counts from the start each time, which over a document's thousands of nodes is quadratic.
 */
export class ByteOffsets {
  #char = 0;
  #byte = 0;

  constructor(private readonly text: string) {}

  at(char: number): number {
    if (char < this.#char) [this.#char, this.#byte] = [0, 0];
    this.#byte += Buffer.byteLength(this.text.slice(this.#char, char), "utf8");
    this.#char = char;
    return this.#byte;
  }

  span(charStart: number, charEnd: number): ByteSpan {
    const start = this.at(charStart);
    return { start_byte: start, end_byte: this.at(charEnd) };
  }
}

/** The text a byte span covers, or undefined when the span lies outside the text. */
export function sliceBytes(text: string, span: ByteSpan): string | undefined {
  const bytes = Buffer.from(text, "utf8");
  if (span.start_byte < 0 || span.end_byte > bytes.length || span.start_byte >= span.end_byte) return undefined;
  return bytes.subarray(span.start_byte, span.end_byte).toString("utf8");
}

/**
 * Finds a verbatim quote in the text: the occurrence at or after `hintStart` bytes when
 * given, else the first. Returns undefined when the quote is not in the text.
 */
export function locateQuote(text: string, quote: string, hintStart?: number): ByteSpan | undefined {
  if (quote.length === 0) return undefined;
  const bytes = Buffer.from(text, "utf8");
  const needle = Buffer.from(quote, "utf8");
  let at = hintStart !== undefined ? bytes.indexOf(needle, hintStart) : -1;
  if (at < 0) at = bytes.indexOf(needle);
  return at < 0 ? undefined : { start_byte: at, end_byte: at + needle.length };
}
