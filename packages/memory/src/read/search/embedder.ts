// What memory needs from an embedding model. @recall/llm's EmbeddingClient fits this
// shape; the apps pass one in, so this package never talks to a provider itself.
import { isClassifiedError } from "@recall/contracts";
import type { EmbeddingOwner } from "@recall/db";
import type { SearchKind } from "./search-types";

export interface Embedder {
  /** `provider:model`; stored with every vector, so vectors of different models are never compared. */
  readonly modelRef: string;
  /** One vector per text, in order; throws the provider's error when the call fails. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<{ vectors: number[][]; usage: { inputTokens: number } }>;
}

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
