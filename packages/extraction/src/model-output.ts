// What a model stage must answer: the extraction diff with verbatim evidence quotes.
// Every field is required (null where absent) so the same schema works in OpenAI's
// strict structured-output mode and as an Anthropic tool input.
import { z } from "zod";
import { MemoryCategory, Significance, type ExtractionDiff } from "@recall/contracts";

const quote = z.string().describe("verbatim text copied exactly from the input that states this");
const confidence = z.number().min(0).max(1);
const isoDate = z.string().nullable().describe("ISO 8601 date-time when the text states when this began/ended, else null");

export const ModelDiff = z.object({
  entities: z.array(z.object({ name: z.string(), type: z.string(), memory_category: MemoryCategory, aliases: z.array(z.string()) })),
  attributes: z.array(
    z.object({
      entity: z.string(),
      key: z.string().describe("snake_case attribute name, e.g. role, title, email"),
      value: z.string(),
      memory_category: MemoryCategory,
      evidence: quote,
      confidence,
      significance: Significance,
      valid_from: isoDate,
      valid_to: isoDate,
    }),
  ),
  relations: z.array(
    z.object({
      subject: z.string(),
      verb: z.string().describe("snake_case predicate, e.g. works_at, lives_in, depends_on"),
      object: z.string(),
      memory_category: MemoryCategory,
      evidence: quote,
      confidence,
      significance: Significance,
      valid_from: isoDate,
      valid_to: isoDate,
    }),
  ),
  instructions: z.array(z.object({ label: z.string(), description: z.string(), evidence: quote })),
  revocations: z.array(z.object({ matches: z.string().describe("the label of the active instruction being withdrawn"), evidence: quote })),
  uncertainties: z.array(z.object({ about: z.string(), reason: z.string(), entity: z.string().nullable(), key: z.string().nullable() })),
});
export type ModelDiff = z.infer<typeof ModelDiff>;

const orUndefined = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

/** A date the model wrote in any parseable form, as ISO 8601; anything else is dropped. */
function isoOrUndefined(v: string | null): string | undefined {
  if (v === null) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

export function fromModelDiff(m: ModelDiff): ExtractionDiff {
  return {
    entities: m.entities.map((e) => ({ ...e, confidence: 0.9 })),
    attributes: m.attributes.map((a) => ({
      ...a,
      evidence: { quote: a.evidence },
      valid_from: isoOrUndefined(a.valid_from),
      valid_to: isoOrUndefined(a.valid_to),
    })),
    relations: m.relations.map((r) => ({
      ...r,
      evidence: { quote: r.evidence },
      valid_from: isoOrUndefined(r.valid_from),
      valid_to: isoOrUndefined(r.valid_to),
    })),
    instructions: m.instructions.map((i) => ({
      label: i.label,
      description: i.description,
      evidence: { quote: i.evidence },
      confidence: 0.9,
    })),
    revocations: m.revocations.map((r) => ({ matches: r.matches, evidence: { quote: r.evidence }, confidence: 0.9 })),
    uncertainties: m.uncertainties.map((u) => ({
      about: u.about,
      reason: u.reason,
      entity: orUndefined(u.entity),
      key: orUndefined(u.key),
    })),
  };
}
