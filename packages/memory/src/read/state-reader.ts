// POST /state: the facts true at a valid-time instant (default now) as the store knew
// them at a system-time instant (default now), plus the active instructions and the
// open unknowns. Facts are paged; instructions and unknowns come with the first page.
import type { DbOrTx } from "@recall/db";
import { activeInstructions, readUnknowns } from "./directive-reader";
import { readFacts } from "./fact-query";
import type { FactView, InstructionView, ListPosition, ReaderScope, UnknownView } from "./read-types";
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
  return { as_of: asOf, recorded_as_of: input.recordedAsOf ?? null, facts: page.items, instructions, unknowns, next: page.next };
}

function earliest(a: Date | undefined, b: Date | undefined): Date {
  const times = [a, b].filter((d): d is Date => d !== undefined).map((d) => d.getTime());
  return new Date(Math.min(...times));
}
