// POST /v1/embeddings for the fake provider server. By default every text gets a
// deterministic embedding (a hashed bag of words, so texts sharing words lie close
// together); a test pins exact vectors for chosen texts to make unrelated wording
// similar, and scripts one-shot answers (errors, delays) for the next requests.
// Embeddings have their own script, apart from the chat queue, because the pipeline
// embeds in the background while a test scripts chat answers.

export const FAKE_EMBEDDING_DIMENSIONS = 64;

export type FakeEmbeddingResponse =
  /** An HTTP error in OpenAI's error shape, after an optional delay. */
  | { status: number; retryAfter?: string; message?: string; delayMs?: number }
  /** Answers normally, but only after this delay (the client may give up first). */
  | { delayMs: number; promptTokens?: number }
  /** Answers normally, reporting this many prompt tokens. */
  | { promptTokens: number };

export interface FakeEmbeddings {
  /** From now on, `text` is embedded as `vector` (instead of its default embedding). */
  pin(text: string, vector: number[]): void;
  /** One-shot answers for the next embeddings requests, in order; then the default again. */
  script(...responses: FakeEmbeddingResponse[]): void;
}

export interface EmbeddingsState extends FakeEmbeddings {
  next(): FakeEmbeddingResponse | undefined;
  vectorFor(text: string, dimensions: number): number[];
}

export function embeddingsState(): EmbeddingsState {
  const pinned = new Map<string, number[]>();
  const queue: FakeEmbeddingResponse[] = [];
  return {
    pin: (text, vector) => void pinned.set(text, vector),
    script: (...responses) => void queue.push(...responses),
    next: () => queue.shift(),
    vectorFor: (text, dimensions) => pinned.get(text) ?? defaultEmbedding(text, dimensions),
  };
}

/**
 * Feature hashing of the text's lower-cased words into `dimensions` buckets, each word
 * adding ±1 (the sign from another bit of its hash, so collisions cancel rather than
 * pile up), normalised to unit length. Same words, same direction.
 */
export function defaultEmbedding(text: string, dimensions = FAKE_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of words(text)) {
    const hash = fnv1a(word);
    vector[hash % dimensions]! += hash & 0x8000_0000 ? -1 : 1;
  }
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  return norm === 0 ? vector : vector.map((x) => x / norm);
}

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function fnv1a(word: string): number {
  let hash = 0x811c_9dc5;
  for (const byte of Buffer.from(word)) hash = Math.imul(hash ^ byte, 0x0100_0193) >>> 0;
  return hash;
}

/** The inputs of a request the real API would accept: a non-empty string or list of non-empty strings. */
export function embeddingInputs(body: Record<string, unknown>): string[] | undefined {
  const input = body["input"];
  const list = typeof input === "string" ? [input] : input;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.every((t): t is string => typeof t === "string" && t !== "") ? list : undefined;
}

/** OpenAI's reply body; base64 is little-endian float32, which is what the SDK asks for by default. */
export function embeddingReply(state: EmbeddingsState, body: Record<string, unknown>, inputs: string[], promptTokens?: number) {
  const dimensions = typeof body["dimensions"] === "number" ? body["dimensions"] : FAKE_EMBEDDING_DIMENSIONS;
  const base64 = body["encoding_format"] === "base64";
  const tokens = promptTokens ?? inputs.reduce((sum, t) => sum + words(t).length, 0);
  return {
    object: "list",
    model: typeof body["model"] === "string" ? body["model"] : "fake-embedding",
    data: inputs.map((text, index) => {
      const vector = state.vectorFor(text, dimensions);
      return { object: "embedding", index, embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector };
    }),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
