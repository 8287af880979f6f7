import type { Embedder } from "@recall/contracts";
import type { Usage } from "./model-client";

export interface EmbeddingResult {
  /** One vector per input text, in input order, all of the same length. */
  vectors: number[][];
  usage: Usage;
  /** The model id the provider reports having used. */
  model: string;
}

/**
 * One configured embedding model. Like ModelClient, one HTTP attempt per call: the queue
 * (or, for a search, the fallback to full text) decides what a failure means.
 */
export interface EmbeddingClient extends Embedder {
  /** `provider:model` as configured; what stored vectors are labelled with, so models are never mixed. */
  readonly modelRef: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddingResult>;
}
