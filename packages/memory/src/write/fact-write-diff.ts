// A direct write has no source text, yet every assertion needs a quote and a byte
// span. So the write gets a synthetic source: one statement per fact-bearing item
// (attributes, relations, instructions), in order, one per line. The statement is the
// caller's own evidence.quote when given ("Alice confirmed on the call she is CEO"),
// else the fact spelled out ("Alice Chen.role = CEO"). Each item's evidence then points
// into that text exactly, and validateCandidate checks it the same way it checks a
// turn's. The text is stored on the fact_writes row, so provenance can show it.
import type { CandidateKind } from "@recall/db";
import { MemoryCategory } from "@recall/contracts";

export interface FieldError {
  field: string;
  message: string;
}

export const DIRECT_SECTIONS = {
  entities: "entity",
  attributes: "attribute",
  relations: "relation",
  instructions: "instruction",
  uncertainties: "uncertainty",
} as const satisfies Record<string, CandidateKind>;

type Section = keyof typeof DIRECT_SECTIONS;

export interface DirectItem {
  section: Section;
  index: number;
  kind: CandidateKind;
  payload: Record<string, unknown>;
  /**
   * No statement could be made (a field it needs is missing, or the caller's quote is
   * empty); the cause is reported on its own field, so "evidence required" would only
   * repeat it.
   */
  withoutEvidence: boolean;
}

export interface PreparedWrite {
  text: string;
  items: DirectItem[];
  errors: FieldError[];
}

const SPELLED: Partial<Record<Section, (item: Record<string, unknown>) => string | undefined>> = {
  attributes: (i) => joined(i.entity, ".", i.key, " = ", i.value),
  relations: (i) => joined(i.subject, " ", i.verb, " ", i.object),
  instructions: (i) => (typeof i.description === "string" ? i.description : undefined),
};

function joined(...parts: unknown[]): string | undefined {
  return parts.every((p) => typeof p === "string" && p !== "") ? parts.join("") : undefined;
}

export function prepareDirectWrite(diff: unknown): PreparedWrite {
  if (typeof diff !== "object" || diff === null || Array.isArray(diff)) {
    return {
      text: "",
      items: [],
      errors: [{ field: "diff", message: `must be an object with ${Object.keys(DIRECT_SECTIONS).join(", ")}` }],
    };
  }
  const errors: FieldError[] = Object.keys(diff)
    .filter((key) => !(key in DIRECT_SECTIONS))
    .map((key) => ({ field: key, message: `is not part of a fact write (expected ${Object.keys(DIRECT_SECTIONS).join(", ")})` }));
  const items: DirectItem[] = [];
  const lines = new StatementText();
  for (const section of Object.keys(DIRECT_SECTIONS) as Section[]) {
    const list = (diff as Record<string, unknown>)[section];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      errors.push({ field: section, message: "must be an array" });
      continue;
    }
    list.forEach((raw, index) => {
      const item = prepareItem(section, index, raw, lines, errors);
      if (item) items.push(item);
    });
  }
  if (items.length === 0 && errors.length === 0) errors.push({ field: "diff", message: "must contain at least one item to write" });
  return { text: lines.text, items, errors };
}

function prepareItem(section: Section, index: number, raw: unknown, lines: StatementText, errors: FieldError[]): DirectItem | undefined {
  const field = `${section}.${index}`;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    errors.push({ field, message: "must be an object" });
    return undefined;
  }
  const item = raw as Record<string, unknown>;
  errors.push(...categoryErrors(section, field, item));
  const payload: Record<string, unknown> = { ...item };
  if (section === "attributes" || section === "relations") {
    payload.confidence ??= 1;
    payload.significance ??= "high";
  }
  const statement = statementOf(section, item, field, errors);
  delete payload.evidence;
  if (statement !== undefined) payload.evidence = { quote: statement, ...lines.add(statement) };
  return { section, index, kind: DIRECT_SECTIONS[section], payload, withoutEvidence: statement === undefined };
}

function statementOf(section: Section, item: Record<string, unknown>, field: string, errors: FieldError[]): string | undefined {
  const spell = SPELLED[section];
  if (!spell) return undefined;
  if (item.evidence === undefined) return spell(item);
  const quote = (item.evidence as { quote?: unknown } | null)?.quote;
  if (typeof quote === "string" && quote.trim() !== "") return quote;
  errors.push({ field: `${field}.evidence.quote`, message: "must be a non-empty string when evidence is given" });
  return undefined;
}

/** Instructions and uncertainties have no category of their own; when a caller sends one it must still be a valid one. */
function categoryErrors(section: Section, field: string, item: Record<string, unknown>): FieldError[] {
  if (section !== "instructions" && section !== "uncertainties") return [];
  if (item.memory_category === undefined || MemoryCategory.safeParse(item.memory_category).success) return [];
  return [{ field: `${field}.memory_category`, message: `must be one of ${MemoryCategory.options.join(", ")}` }];
}

/** The synthetic source: statements joined by newlines, with the byte span of each. */
class StatementText {
  private parts: string[] = [];
  private bytes = 0;

  add(statement: string): { start_byte: number; end_byte: number } {
    if (this.parts.length > 0) this.bytes += 1;
    const start = this.bytes;
    this.parts.push(statement);
    this.bytes += Buffer.byteLength(statement, "utf8");
    return { start_byte: start, end_byte: this.bytes };
  }

  get text(): string {
    return this.parts.join("\n");
  }
}
