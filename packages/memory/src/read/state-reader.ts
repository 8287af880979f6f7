// POST /state: the facts true at a valid-time instant (default now) as the store knew
// them at a system-time instant (default now), plus the active instructions and the
// open unknowns. Facts are paged; instructions and unknowns come with the first page.
// The answer is bounded in bytes (answer-bounds.ts): long values are clipped, the
// instructions and unknowns take at most a quarter of the budget each, and the page of
// facts ends early when the rest is spent.
import type { DbOrTx } from "@recall/db";
import { ITEMS_BYTES, READ_LIMITS, jsonBytes } from "./answer-bounds";
import { clipFact, clipInstruction, clipUnknown, listWithin, pageWithin, type Truncation } from "./clip-views";
import { activeInstructions, readUnknowns } from "./directive-reader";
import { readFacts } from "./fact-query";
import type { FactView, InstructionView, ListPosition, Page, ReaderScope, UnknownView } from "./read-types";
import { pageOf } from "./sql-fragments";

export interface StateInput extends ReaderScope {
  asOf?: Date;
  recordedAsOf?: Date;
  includeResolved: boolean;
  limit: number;
  after?: ListPosition;
}

export interface MemoryState {
  as_of: Date;
  recorded_as_of: Date | null;
  facts: FactView[];
  /** Only on the first page; undefined on later ones. */
  instructions?: InstructionView[];
  unknowns?: UnknownView[];
  next: ListPosition | null;
  /** Set when the instructions or unknowns were cut to the byte budget (GET /instructions lists them all). */
  truncated?: true;
}

export async function readState(db: DbOrTx, input: StateInput): Promise<MemoryState> {
  const asOf = input.asOf ?? new Date();
  const facts = readFacts(db, {
    contextId: input.contextId,
    scope: input.scope,
    validAt: asOf,
    recordedAsOf: input.recordedAsOf,
    after: input.after,
    limit: input.limit + 1,
  });
  const firstPage = !input.after;
  // Directives have one time axis (when given, when revoked): the earlier of the two instants bounds them.
  const directiveTime = input.asOf || input.recordedAsOf ? earliest(input.asOf, input.recordedAsOf) : undefined;
  const [rows, instructions, unknowns] = await Promise.all([
    facts,
    firstPage ? activeInstructions(db, input, directiveTime) : undefined,
    firstPage ? readUnknowns(db, input, { includeResolved: input.includeResolved, at: directiveTime }) : undefined,
  ]);
  const page = pageOf(rows, input.limit, (f) => f.recorded_at.toISOString());
  return { as_of: asOf, recorded_as_of: input.recordedAsOf ?? null, ...withinBudget(page, instructions, unknowns) };
}

/** Values clipped; the directives (first page only) a quarter of the budget each, the facts what is left. */
function withinBudget(page: Page<FactView>, instructions?: InstructionView[], unknowns?: UnknownView[]) {
  const rules = listWithin((instructions ?? []).map(clipInstruction), READ_LIMITS.answerBytes / 4);
  const open = listWithin((unknowns ?? []).map(clipUnknown), READ_LIMITS.answerBytes / 4);
  const left = ITEMS_BYTES - jsonBytes(rules.items) - jsonBytes(open.items);
  const facts = pageWithin({ items: page.items.map(clipFact), next: page.next }, left, (f) => f.recorded_at.toISOString());
  const cut: Truncation = rules.cut || open.cut ? { truncated: true } : {};
  return {
    facts: facts.items,
    instructions: instructions && rules.items,
    unknowns: unknowns && open.items,
    next: facts.next,
    ...cut,
  };
}

function earliest(a: Date | undefined, b: Date | undefined): Date {
  const times = [a, b].filter((d): d is Date => d !== undefined).map((d) => d.getTime());
  return new Date(Math.min(...times));
}
