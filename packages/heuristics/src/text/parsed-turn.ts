// One compromise parse per input, shared by the sentence splitter and the open reader (its
// contraction expansion, part-of-speech tags, verb lemmas and noun phrases): compromise's tagger
// is most of the heuristics' CPU time, so no detector parses a clause again. Each line is parsed
// on its own (a line break always ends a sentence); every offset is into the whole text.
import nlp from "compromise";
import type { Sentence } from "./sentence-splitter";

export interface ParsedTerm {
  /** As written ("I'm"); "" for the later words of a contraction. */
  text: string;
  normal: string;
  /** The word a contraction's part stands for ("i", "am"). */
  implicit?: string;
  tags: string[];
  /** Character offsets into the text. */
  start: number;
  end: number;
}

export interface ParsedTurn {
  sentences: Sentence[];
  terms: ParsedTerm[];
  /** The dictionary form of the verb phrase holding the term that starts at `offset`. */
  lemmaAt(offset: number): string | undefined;
  /** Noun phrases (their text, head and start offset) overlapping [start, end). */
  nounsIn(start: number, end: number): { text: string; root?: string; start: number }[];
}

interface OffsetJson {
  offset: { start: number; length: number };
}

type TermJson = OffsetJson & { text: string; normal: string; implicit?: string; tags: string[] };

interface Line {
  doc: ReturnType<typeof nlp>;
  at: number;
  verbs?: (OffsetJson & { verb?: { infinitive?: string } })[];
  nouns?: (OffsetJson & { text: string; noun?: { root?: string } })[];
}

export function parseTurn(text: string): ParsedTurn {
  const lines: Line[] = [];
  const sentences: Sentence[] = [];
  const terms: ParsedTerm[] = [];
  for (const match of text.matchAll(/[^\n]+/g)) {
    const line: Line = { doc: nlp(match[0]), at: match.index };
    const found = line.doc.json({ offset: true, terms: { offset: true } }) as (OffsetJson & { terms: TermJson[] })[];
    lines.push(line);
    addSentences(match[0], match.index, found, sentences);
    for (const t of found.flatMap((s) => s.terms)) {
      const start = line.at + t.offset.start;
      terms.push({ text: t.text, normal: t.normal, implicit: t.implicit ?? undefined, tags: t.tags, start, end: start + t.offset.length });
    }
  }
  return {
    sentences,
    terms,
    lemmaAt: (offset) => {
      const line = lineAt(lines, offset);
      line.verbs ??= line.doc.verbs().json({ offset: true }) as Line["verbs"];
      return line.verbs!.find((v) => within(line.at, v.offset, offset, offset))?.verb?.infinitive;
    },
    nounsIn: (start, end) => {
      const line = lineAt(lines, start);
      line.nouns ??= line.doc.nouns().json({ offset: true }) as Line["nouns"];
      return line
        .nouns!.filter((n) => within(line.at, n.offset, start, end))
        .map((n) => ({ text: n.text, root: n.noun?.root, start: line.at + n.offset.start }));
    },
  };
}

function lineAt(lines: Line[], offset: number): Line {
  return [...lines].reverse().find((l) => l.at <= offset) ?? lines[0]!;
}

/** Whether a chunk (line-relative offset) overlaps [start, end], or holds `start` when the range is a point. */
function within(at: number, offset: OffsetJson["offset"], start: number, end: number): boolean {
  const from = at + offset.start;
  const to = from + offset.length;
  return start === end ? from <= start && start < to : from < end && start < to;
}

/**
 * Where compromise ends each sentence of one line. Its offsets leave out leading punctuation
 * (an opening quote, an emoji), so each sentence runs from the previous end to its own and the
 * last one to the end of the line: no character of the source falls between sentences.
 */
function addSentences(line: string, at: number, found: OffsetJson[], into: Sentence[]): void {
  const ends = [...found.slice(0, -1).map((s) => s.offset.start + s.offset.length), line.length];
  let from = 0;
  for (const end of ends) {
    pushTrimmed(line, from, end, into, at);
    from = end;
  }
}

/** text[start, end) without surrounding whitespace, as a sentence at `base` + its offset (nothing when blank). */
export function pushTrimmed(text: string, start: number, end: number, into: Sentence[], base = 0): void {
  const raw = text.slice(start, end);
  const lead = raw.length - raw.trimStart().length;
  const trimmed = raw.trim();
  if (trimmed.length === 0) return;
  const at = base + start + lead;
  into.push({ text: trimmed, start: at, end: at + trimmed.length });
}
