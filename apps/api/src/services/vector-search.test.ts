import { configWith } from "@recall/config";
import type { DbOrTx } from "@recall/db";
import { vectorRetriever } from "./vector-search";

const input = { contextId: "c", scope: [], query: "anything", limit: 5, kinds: ["turn"] as const, match: "any" as const };
// An unavailable retriever answers before touching the database.
const unused = {} as DbOrTx;

test("no embedding model: no vector retriever", () => {
  expect(vectorRetriever(configWith({ OPENAI_API_KEY: "k" }))).toBeUndefined();
});

test("a model whose credentials are missing keeps the API up and tells every search what to set", async () => {
  const retriever = vectorRetriever(configWith({ RECALL_EMBEDDING_MODEL: "openai:text-embedding-3-small" }));
  expect(retriever?.model).toBe("openai:text-embedding-3-small");
  expect(await retriever!.search(unused, input)).toEqual({ ok: false, reason: expect.stringContaining("OPENAI_API_KEY is not set") });
});
