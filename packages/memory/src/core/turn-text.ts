// How a turn's attachments are stored and how SQL reads a turn's source text: the same definition as
// `turnSourceText` (@recall/contracts), the content and then, after a newline, the attachments' text.
import { type Attachment, attachmentText } from "@recall/contracts";
import { Prisma, toJson } from "@recall/db";

/** The columns a turn's attachments fill: the list as given and its derived text. */
export function attachmentColumns(attachments: readonly Attachment[] | undefined) {
  const list = (attachments ?? []).map((a) => Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)));
  return { attachments: toJson(list), attachmentText: attachmentText(attachments) };
}

/** A turn's source text as an SQL expression over a turns row (under `alias`, or unqualified). */
export function turnTextExpr(alias?: string): string {
  const c = (column: string) => (alias ? `${alias}.${column}` : column);
  return `(CASE WHEN ${c("attachment_text")} = '' THEN ${c("content")} ELSE ${c("content")} || E'\\n' || ${c("attachment_text")} END)`;
}

/** The same, as a fragment to interpolate. */
export const turnTextSql = (alias?: string): Prisma.Sql => Prisma.raw(turnTextExpr(alias));
