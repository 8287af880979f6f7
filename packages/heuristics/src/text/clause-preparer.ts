// Reduces a clause to the statement the grammar reads: no greeting or correction marker,
// no time phrase (kept aside to date the facts), no final punctuation.
import { CORRECTION_MARKER, DISCOURSE_MARKER } from "../statements/statement-grammar";
import { findTemporalPhrases, type TemporalPhrase } from "../time/temporal-resolver";

export interface PreparedClause {
  body: string;
  /** The clause corrects something said or known before ("actually …", "correction: …"). */
  correction: boolean;
  /** Time phrases found in the clause, relative to the clause after markers were removed. */
  phrases: TemporalPhrase[];
}

const TRAILING_CORRECTION = /[\s,]+(?:actually|now actually)$/i;

export function prepareClause(text: string, referenceTime?: Date): PreparedClause {
  let body = normaliseApostrophes(text)
    .replace(/[\s.!?…]+$/u, "")
    .replace(DISCOURSE_MARKER, "");
  const correction = CORRECTION_MARKER.test(body) || TRAILING_CORRECTION.test(body);
  body = body.replace(CORRECTION_MARKER, "").replace(TRAILING_CORRECTION, "").replace(DISCOURSE_MARKER, "");
  const phrases = referenceTime ? findTemporalPhrases(body, referenceTime) : [];
  return { body: withoutSpans(body, phrases), correction, phrases };
}

export function normaliseApostrophes(text: string): string {
  return text.replace(/[’‘`]/g, "'");
}

function withoutSpans(body: string, spans: { start: number; end: number }[]): string {
  let out = body;
  for (const span of [...spans].sort((a, b) => b.start - a.start)) out = out.slice(0, span.start) + out.slice(span.end);
  return out
    .replace(/\s+,/g, ",")
    .replace(/\s{2,}/g, " ")
    .replace(/^[\s,;:-]+|[\s,;:-]+$/g, "");
}
