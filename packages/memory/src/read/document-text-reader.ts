// A document's text read a range at a time: where a /query excerpt of a document node, or an
// evidence span, is read in full. A document may be 10 MiB, so one answer holds at most
// READ_LIMITS.textRangeBytes of it and says where the next range starts.
import { Prisma, type DbOrTx } from "@recall/db";
import { normaliseScope } from "../core/scope";
import { READ_LIMITS } from "./answer-bounds";
import type { ReaderScope } from "./read-types";
import { documentScope } from "./search/search-sql";

export interface DocumentTextInput extends ReaderScope {
  documentId: string;
  /** UTF-8 byte offsets into the document's text, as node and evidence spans are; the range is cut to the cap. */
  startByte: number;
  endByte?: number;
}

export interface DocumentText {
  document_id: string;
  /** The range answered, moved to whole characters. */
  start_byte: number;
  end_byte: number;
  text_bytes: number;
  text: string;
  /** Where the next range starts; null once the text's end was answered. */
  next_start_byte: number | null;
}

/** The range of the document's text, or null when the document is not in the context or not visible to the reader. */
export async function readDocumentText(db: DbOrTx, input: DocumentTextInput): Promise<DocumentText | null> {
  const start = input.startByte;
  const end = Math.max(start, Math.min(input.endByte ?? Infinity, start + READ_LIMITS.textRangeBytes));
  // Cut in SQL so a 10 MiB text is not shipped to answer 150 KB; three bytes more to finish a character.
  const rows = await db.$queryRaw<{ id: string; bytes: Uint8Array; size: number }[]>(Prisma.sql`
    SELECT id::text, substring(b FROM ${start + 1}::int FOR ${end - start + 3}::int) AS bytes, octet_length(b)::int AS size
    FROM (SELECT d.id, convert_to(d.text, 'UTF8') AS b FROM documents d
      WHERE d.id = ${input.documentId}::uuid AND d.context_id = ${input.contextId}::uuid
        AND ${documentScope} <@ ${normaliseScope(input.scope)}::text[]) s`);
  const row = rows[0];
  if (!row) return null;
  const bytes = Buffer.from(row.bytes);
  const from = leadingContinuation(bytes);
  const to = Math.max(from, characterEnd(bytes, Math.min(end, row.size) - start));
  const range = { start_byte: start + from, end_byte: start + to };
  const next = range.end_byte < row.size ? range.end_byte : null;
  const text = bytes.subarray(from, to).toString("utf8");
  // The stored id, not the path's spelling of it (a client may send it in capitals).
  return { document_id: row.id, ...range, text_bytes: row.size, text, next_start_byte: next };
}

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/** Bytes at the start that continue a character begun before the range. */
function leadingContinuation(bytes: Buffer): number {
  let i = 0;
  while (i < 3 && isContinuation(bytes[i])) i += 1;
  return i;
}

/** The first character boundary at or after `want` (the three extra bytes finish a character cut there). */
function characterEnd(bytes: Buffer, want: number): number {
  let i = Math.max(0, want);
  while (i < bytes.length && isContinuation(bytes[i])) i += 1;
  return i;
}
