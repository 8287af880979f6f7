// A turn's attachments (an image shared in a chat, a file, a link), declared once: the turn routes, MCP's remember,
// the import's turn line and the stored column share this schema. What is indexed, quoted and shown of them is their
// text (captions and alt text), appended to the turn's content: `turnSourceText` is the one definition of the text a
// turn's evidence spans point into. A URL is stored as given and never fetched.
import { z } from "zod";
import { WRITE_CAPS, cappedText } from "./limits";

const over = (cap: "attachments" | "url" | "mime_type", what: string) =>
  `at most ${WRITE_CAPS[cap].toLocaleString("en-US")} ${what} (${cap} cap)`;

const HttpUrl = z
  .string()
  .max(WRITE_CAPS.url, over("url", "characters"))
  .refine((url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol), "must be an http or https URL");

export const Attachment = z.strictObject({
  kind: z.enum(["image", "file", "link"]),
  caption: cappedText("attachment_text").optional().describe("what the attachment shows or says, e.g. a photo's caption"),
  alt_text: cappedText("attachment_text").optional().describe("the alt text of an image"),
  url: HttpUrl.optional().describe("where it lives (http or https); stored as given, never fetched"),
  mime_type: z
    .string()
    .max(WRITE_CAPS.mime_type, over("mime_type", "characters"))
    .regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a media type such as image/jpeg")
    .optional(),
});
export type Attachment = z.infer<typeof Attachment>;

export const AttachmentList = z.array(Attachment).max(WRITE_CAPS.attachments, over("attachments", "attachments"));

/** One line per attachment with text: `[image] caption — alt text`. Attachments without text add no line. */
export function attachmentText(attachments: readonly Attachment[] | undefined): string {
  const lines = (attachments ?? []).flatMap((a) => {
    const parts = [a.caption, a.alt_text].map((t) => t?.replace(/\s+/g, " ").trim()).filter((t): t is string => !!t);
    return parts.length > 0 ? [`[${a.kind}] ${parts.join(" — ")}`] : [];
  });
  return lines.join("\n");
}

/** Whether a turn's text carries attachment lines (a prompt then says what they are). */
export const hasAttachmentLines = (text: string): boolean => /\n\[(?:image|file|link)\] /.test(text);

/** What a model is told of attachment lines, only when a turn has them (prompts without them stay as they were). */
export const ATTACHMENT_NOTE =
  "Lines after the message that start with [image], [file] or [link] describe what the speaker shared with it (a caption, " +
  'then its alt text after " — "); they are part of the turn: extract what they state and quote them as evidence like the message.';

/**
 * The text a turn's evidence spans point into, its extraction prompt reads and its excerpts show: the content, then
 * (after a newline) its attachments' text. A span past the content's end points into the attachment text.
 */
export function turnSourceText(turn: { content: string; attachmentText?: string | null }): string {
  return turn.attachmentText ? `${turn.content}\n${turn.attachmentText}` : turn.content;
}
