import { Attachment, AttachmentList, attachmentText, hasAttachmentLines, turnSourceText } from "./attachments";
import { WRITE_CAPS } from "./limits";

test("each attachment with text is one line; one without text adds none", () => {
  const text = attachmentText([
    { kind: "image", caption: "a dog\non a beach", alt_text: "dog" },
    { kind: "link", url: "https://example.com/" },
    { kind: "file", alt_text: "the Q3 report" },
  ]);
  expect(text).toBe("[image] a dog on a beach — dog\n[file] the Q3 report");
});

test("a turn's text is its content, then its attachment text after a newline, when there is any", () => {
  expect(turnSourceText({ content: "Take a look!", attachmentText: "[image] a dog" })).toBe("Take a look!\n[image] a dog");
  expect(turnSourceText({ content: "Hello.", attachmentText: "" })).toBe("Hello.");
});

test("a URL is http or https and within its cap; a list holds at most the attachments cap", () => {
  const url = (u: string) => Attachment.safeParse({ kind: "link", url: u }).success;
  expect([url("https://example.com/a.jpg"), url("http://x.test"), url("ftp://x.test/a"), url("javascript:alert(1)")]).toEqual([
    true,
    true,
    false,
    false,
  ]);
  expect(url(`https://example.com/${"x".repeat(WRITE_CAPS.url)}`)).toBe(false);
  expect(AttachmentList.safeParse(Array(WRITE_CAPS.attachments + 1).fill({ kind: "image" })).success).toBe(false);
});

test("a prompt is told of attachment lines only when a turn's text has them", () => {
  expect(hasAttachmentLines(turnSourceText({ content: "Look!", attachmentText: "[image] a dog" }))).toBe(true);
  expect(hasAttachmentLines("Look!\nA dog.")).toBe(false);
});
