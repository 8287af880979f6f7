// How memory stores and judges what an embedding model (the Embedder port, @recall/contracts ports.ts, which the apps
// hand in) answers: which table's rows a kind's vectors belong to, and whether a failure was the provider's.
import { isClassifiedError } from "@recall/contracts";
import type { EmbeddingOwner } from "@recall/db";
import type { SearchKind } from "./search-types";

/** Attributes and relations are both `fact` rows of the embeddings table: their ids never collide. */
export const OWNER_OF: Record<SearchKind, EmbeddingOwner> = {
  attribute: "fact",
  relation: "fact",
  instruction: "instruction",
  turn: "turn",
  document_node: "document_node",
};

/** The provider failed or answered unusably, which says nothing about our input. */
export function isProviderFailure(err: unknown): err is Error {
  return isClassifiedError(err) && err.errorClass === "provider";
}
