// Which candidates a context's review rule holds: by kind, by memory category, by the input's scope; direct writes never.
import type { ReviewRule } from "@recall/contracts";
import type { KnowledgeCandidate } from "@recall/db";
import { attribute, relation } from "../testing/memory-fixture";
import { categoryOf, splitForReview } from "./review-rule";

const candidate = (id: string, kind: KnowledgeCandidate["kind"], payload: object, stage = "fast") =>
  ({ id, kind, payload, stage }) as KnowledgeCandidate;

const ROLE = candidate("role", "attribute", attribute("Alice", "role", "CTO", "I'm CTO"));
const HOBBY = candidate(
  "hobby",
  "relation",
  relation("Alice", "likes", "hiking", "activity", "I love hiking", { memory_category: "context" }),
);
const ACME = candidate("acme", "entity", { name: "Acme", type: "organization", memory_category: "knowledge" });
const BULLETS = candidate("bullets", "instruction", { label: "Bullets", description: "Always respond in bullet points" });
const DIRECT = candidate("direct", "attribute", attribute("Alice", "title", "CTO", "CTO"), "direct");
const ALL = [ROLE, HOBBY, ACME, BULLETS, DIRECT];

const held = (rule: ReviewRule | undefined, scope: string[] = []) => splitForReview(ALL, rule, scope).hold.map((c) => c.id);

test.each<[string, ReviewRule | undefined, string[], string[]]>([
  ["no rule holds nothing", undefined, [], []],
  ["required holds every candidate but the direct write", "required", [], ["role", "hobby", "acme", "bullets"]],
  ["an empty rule object holds as required does", {}, [], ["role", "hobby", "acme", "bullets"]],
  ["kinds: only those kinds", { kinds: ["attribute", "instruction"] }, [], ["role", "bullets"]],
  ["categories: only facts and entities of those categories", { categories: ["identity", "knowledge"] }, [], ["role", "acme"]],
  ["kinds and categories: both must match", { kinds: ["relation", "entity"], categories: ["context"] }, [], ["hobby"]],
  ["a category rule never holds a kind without categories", { kinds: ["instruction"], categories: ["identity"] }, [], []],
  ["scope: an input in that scope", { scope: { user: "alice" } }, ["org=acme", "user=alice"], ["role", "hobby", "acme", "bullets"]],
  ["scope: an input in another scope is not held", { scope: { user: "alice" } }, ["user=bob"], []],
  ["scope: every pair must be the input's", { scope: { org: "acme", user: "alice" } }, ["user=alice"], []],
  ["scope: the input's pairs are normalised first", { scope: { user: "alice" } }, [" user=alice "], ["role", "hobby", "acme", "bullets"]],
])("%s", (_name, rule, scope, expected) => {
  expect(held(rule, scope)).toEqual(expected);
});

test("the split keeps every candidate once, each side in the input's order", () => {
  const split = splitForReview(ALL, { categories: ["identity"] }, []);
  expect(split.hold.map((c) => c.id)).toEqual(["role"]);
  expect(split.commit.map((c) => c.id)).toEqual(["hobby", "acme", "bullets", "direct"]);
});

test.each<[string, KnowledgeCandidate, string | undefined]>([
  ["an attribute", ROLE, "identity"],
  ["a relation", HOBBY, "context"],
  ["an entity", ACME, "knowledge"],
  ["an instruction", BULLETS, undefined],
  ["a revocation", candidate("stop", "revocation", { matches: "bullet points" }), undefined],
  ["an uncertainty", candidate("unsure", "uncertainty", { about: "Alice's role", reason: "two values" }), undefined],
])("the category of %s is its payload's memory_category, if its kind has one", (_name, c, category) => {
  expect(categoryOf(c)).toBe(category);
});
