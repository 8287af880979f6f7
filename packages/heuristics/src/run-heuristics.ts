// The heuristic stage: reads what rules can read without a model, and finishes the input
// only when every sentence was read (or is small talk) with enough confidence.
import { emptyDiff, type ExtractionDiff, type ExtractionInput, type HeuristicOutcome } from "@recall/contracts";
import type { TurnContext } from "./heuristic-types";
import { commentaryConfidence } from "./statements/commentary";
import { findKnownEntities } from "./speakers/known-entity-matcher";
import { mergeFindings } from "./diff-merger";
import { readSentence, type SentenceReading } from "./text/sentence-reader";
import { parseTurn, type ParsedTurn } from "./text/parsed-turn";
import type { Sentence } from "./text/sentence-splitter";
import { phaticVerdict } from "./small-talk-gate";
import { resolveAddressee } from "./speakers/addressee-resolver";
import { resolveSpeaker } from "./speakers/speaker-resolver";

export interface HeuristicOptions {
  /** Minimum confidence for the heuristic stage to finish an input on its own. */
  threshold: number;
}

export function runHeuristics(input: ExtractionInput, options: HeuristicOptions): HeuristicOutcome {
  // The one compromise parse of the input: its sentences here, its tags for the open reader.
  const parsed = parseTurn(input.text);
  const sentences = parsed.sentences;
  if (sentences.length === 0) return decide(emptyDiff(), 1, "no text to read", options);
  const gate = input.kind === "turn" ? smallTalkConfidence(sentences) : undefined;
  if (gate !== undefined) return decide(emptyDiff(), gate, "small talk: nothing durable", options);
  const context = contextFor(input, parsed);
  const readings = withoutCommentary(
    sentences.map((s) => readSentence(s, context, input.kind === "turn")),
    input.kind === "turn",
  );
  const findings = readings.flatMap((r) => r.findings);
  const mentions = findKnownEntities(input.text, input.knownEntities).filter((m) => inRead(m.start, readings));
  const diff = mergeFindings(findings, mentions, input.text);
  const gaps = gapsOf(readings);
  const confidence = Math.min(1, ...findings.map((f) => f.confidence), ...readings.map((r) => r.phaticConfidence ?? 1));
  if (gaps.length > 0)
    return { finished: false, partial: diff, confidence: Math.min(confidence, 0.3), reason: `needs a model: ${gaps.join("; ")}` };
  const rules = [...new Set(findings.map((f) => f.rule))];
  return decide(diff, confidence, `read by heuristics (${rules.join(", ") || "small talk"})`, options);
}

function decide(diff: ExtractionDiff, confidence: number, reason: string, options: HeuristicOptions): HeuristicOutcome {
  if (confidence >= options.threshold) return { finished: true, diff, confidence, reason };
  return {
    finished: false,
    partial: diff,
    confidence,
    reason: `${reason}; confidence ${confidence.toFixed(2)} is below ${options.threshold}`,
  };
}

/** Confidence that every sentence is small talk, or undefined when one is not. */
function smallTalkConfidence(sentences: Sentence[]): number | undefined {
  let confidence = 1;
  for (const sentence of sentences) {
    const verdict = phaticVerdict(sentence.text);
    if (!verdict.phatic) return undefined;
    confidence = Math.min(confidence, verdict.confidence);
  }
  return confidence;
}

function contextFor(input: ExtractionInput, parsed: ParsedTurn): TurnContext {
  const fromUser = input.kind === "turn" && (input.role === undefined || input.role === "user");
  const speaker = fromUser ? resolveSpeaker(input, parsed.sentences) : undefined;
  return {
    text: input.text,
    parsed,
    referenceTime: input.referenceTime,
    fromUser,
    speaker,
    addressee: fromUser ? resolveAddressee(input.text, input.knownEntities, speaker) : undefined,
    knownEntities: input.knownEntities,
    knownAttributes: input.knownAttributes,
    activeInstructions: input.activeInstructions,
  };
}

/**
 * In a turn with facts read, drops the unread clauses that only comment on them or on the
 * listener, at the commentary's confidence.
 */
function withoutCommentary(readings: SentenceReading[], isTurn: boolean): SentenceReading[] {
  const hasFacts = readings.some((r) => r.findings.some((f) => f.complete && (f.diff.attributes?.length || f.diff.relations?.length)));
  if (!isTurn || !hasFacts) return readings;
  return readings.map((r) => {
    const verdicts = r.unread.map((c) => commentaryConfidence(c.text));
    if (verdicts.every((v) => v === undefined)) return r;
    const dropped = verdicts.filter((v): v is number => v !== undefined);
    return {
      ...r,
      unread: r.unread.filter((_, i) => verdicts[i] === undefined),
      phaticConfidence: Math.min(r.phaticConfidence ?? 1, ...dropped),
    };
  });
}

/** Known entities count as mentions only outside small talk ("Thanks, Alice!" says nothing about Alice). */
function inRead(at: number, readings: SentenceReading[]): boolean {
  return readings.some((r) => at >= r.sentence.start && at < r.sentence.end && (r.findings.length > 0 || r.unread.length > 0));
}

function gapsOf(readings: SentenceReading[]): string[] {
  const unread = readings
    .flatMap((r) => r.unread)
    .map((c) => `no rule reads "${c.text.length > 60 ? `${c.text.slice(0, 57)}...` : c.text}"`);
  const incomplete = readings
    .flatMap((r) => r.findings)
    .filter((f) => !f.complete)
    .map((f) => f.gap ?? f.rule);
  return [...incomplete, ...unread];
}
