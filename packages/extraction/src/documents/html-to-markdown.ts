// HTML pages: the main content is found the way reader views find it (Mozilla's
// Readability over a linkedom DOM, so navigation, footers and scripts fall away), then
// written as Markdown (turndown, with GFM tables) and split like any Markdown document.
import { Readability } from "@mozilla/readability";
import { gfm } from "@joplin/turndown-plugin-gfm";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";

/** Readability reads any DOM with the standard interface; linkedom's document has its own types. */
const ReaderView: new (document: object) => Pick<Readability, "parse"> = Readability;

export function htmlToMarkdown(html: string): string {
  const { document } = parseHTML(html);
  const fallbackTitle = document.querySelector("title")?.textContent?.trim() ?? "";
  // Readability edits the DOM it reads; the fallback reads a fresh copy.
  const article = new ReaderView(document).parse();
  const content = article?.content?.trim() ? article.content : bodyOf(html);
  const markdown = turndown().turndown(content).trim();
  const title = (article?.title ?? fallbackTitle).trim();
  // Readability demotes the page's own h1 to h2; the title becomes the top of every heading path.
  return title && !/^#\s/.test(markdown) ? `# ${title}\n\n${markdown}\n` : `${markdown}\n`;
}

function bodyOf(html: string): string {
  const { document } = parseHTML(html);
  for (const el of document.querySelectorAll("script, style, noscript, nav, header, footer, aside")) el.remove();
  return document.body?.innerHTML ?? html;
}

function turndown(): TurndownService {
  const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  service.use(gfm);
  return service;
}
