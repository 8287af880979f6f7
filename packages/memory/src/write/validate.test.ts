// validateCandidate: shape, evidence in the source, memory_category, skill entity types.
import { WRITE_CAPS } from "@recall/contracts";
import { validateCandidate } from "./validate";

const TEXT = "Ich heiße Zoë. I'm Alice Chen, CTO at Acme.";
const role = {
  entity: "Alice Chen",
  entity_type: "person",
  key: "Job Title",
  value: "CTO",
  memory_category: "identity",
  evidence: { quote: "Alice Chen, CTO" },
  confidence: 0.9,
};

function issues(kind: Parameters<typeof validateCandidate>[0], payload: unknown, allowed?: string[]) {
  const result = validateCandidate(kind, payload, { sourceText: TEXT, allowedTypes: allowed && new Set(allowed) });
  return result.ok ? [] : result.issues;
}

test("a quote in the source gets its UTF-8 byte span, and the key one spelling", () => {
  const result = validateCandidate("attribute", role, { sourceText: TEXT });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  const evidence = result.payload.evidence as { start_byte: number; end_byte: number; quote: string };
  expect(Buffer.from(TEXT).subarray(evidence.start_byte, evidence.end_byte).toString()).toBe("Alice Chen, CTO");
  expect(evidence.start_byte).toBe(Buffer.byteLength("Ich heiße Zoë. I'm "));
  expect(result.payload.key).toBe("job_title");
  expect(result.payload.significance).toBe("medium");
});

test("offsets that do not slice back to the quote are not trusted; the quote is located instead", () => {
  const result = validateCandidate(
    "attribute",
    { ...role, evidence: { quote: "CTO at Acme", start_byte: 0, end_byte: 11 } },
    { sourceText: TEXT },
  );
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  const evidence = result.payload.evidence as { start_byte: number; end_byte: number };
  expect(Buffer.from(TEXT).subarray(evidence.start_byte, evidence.end_byte).toString()).toBe("CTO at Acme");
});

test("a quote that is not in the source is rejected", () => {
  expect(issues("attribute", { ...role, evidence: { quote: "Alice Chen, CEO" } })).toEqual([
    { field: "evidence.quote", message: "the quoted text is not in the source" },
  ]);
});

test("memory_category must be identity, knowledge or context", () => {
  expect(issues("attribute", { ...role, memory_category: "episodic" }).map((i) => i.field)).toEqual(["memory_category"]);
  expect(issues("entity", { name: "Acme", type: "organization" }).map((i) => i.field)).toEqual(["memory_category"]);
});

test("attributes and relations need evidence; blank names and inverted validity are rejected", () => {
  const { evidence: _e, ...noEvidence } = role;
  expect(issues("attribute", noEvidence).map((i) => i.field)).toEqual(["evidence"]);
  expect(issues("attribute", { ...role, value: "   " }).map((i) => i.field)).toEqual(["value"]);
  const inverted = { ...role, valid_from: "2025-03-01T00:00:00Z", valid_to: "2025-01-01T00:00:00Z" };
  expect(issues("attribute", inverted).map((i) => i.field)).toEqual(["valid_to"]);
});

test("entity types must be known to the skill; topic always is, synonyms count", () => {
  const allowed = ["person", "organization", "location"];
  expect(issues("attribute", role, allowed)).toEqual([]);
  expect(issues("entity", { name: "Acme", type: "Company", memory_category: "knowledge" }, allowed)).toEqual([]);
  expect(issues("entity", { name: "Acme", type: "topic", memory_category: "knowledge" }, allowed)).toEqual([]);
  const relation = {
    subject: "Alice Chen",
    verb: "Works At",
    object: "Acme",
    object_type: "spaceship",
    memory_category: "identity",
    evidence: { quote: "CTO at Acme" },
    confidence: 0.8,
  };
  expect(issues("relation", relation, allowed).map((i) => i.field)).toEqual(["object_type"]);
});

test("validation is deterministic: the same invalid payload gives the same errors", () => {
  const bad = { ...role, memory_category: "episodic", evidence: { quote: "not there" } };
  expect(issues("attribute", bad)).toEqual(issues("attribute", bad));
});

test.each(["!!!", "???", "\u200b"])("a candidate naming an entity %j, which has no letter or digit, is refused", (name) => {
  const nameless = /must contain a letter or digit/;
  expect(issues("entity", { name, type: "person", memory_category: "identity" })).toEqual([
    { field: "name", message: expect.stringMatching(nameless) },
  ]);
  expect(issues("attribute", { ...role, entity: name })).toEqual([{ field: "entity", message: expect.stringMatching(nameless) }]);
  const relation = {
    subject: "Alice Chen",
    verb: "works_at",
    object: name,
    memory_category: "identity",
    evidence: { quote: "CTO at Acme" },
    confidence: 0.9,
  };
  expect(issues("relation", relation)).toEqual([{ field: "object", message: expect.stringMatching(nameless) }]);
  expect(issues("uncertainty", { about: "title", reason: "unclear", entity: name })).toEqual([
    { field: "entity", message: expect.stringMatching(nameless) },
  ]);
});

test("a name with a letter among invisible characters or symbols is accepted", () => {
  expect(issues("entity", { name: "\u200bZoë!", type: "person", memory_category: "identity" })).toEqual([]);
});

test("a model or rule's name over the name cap is an invalid candidate naming the field and the cap, never stored", () => {
  const long = "A".repeat(WRITE_CAPS.name + 1);
  expect(issues("entity", { name: long, type: "person", memory_category: "identity" })).toEqual([
    { field: "name", message: expect.stringMatching(/at most 200 characters \(name cap\)/) },
  ]);
  expect(issues("relation", { ...role, subject: "Alice Chen", verb: "works_at", object: long, key: undefined })).toContainEqual({
    field: "object",
    message: expect.stringMatching(/name cap/),
  });
  expect(issues("attribute", { ...role, value: "x".repeat(WRITE_CAPS.value + 1) })).toEqual([
    { field: "value", message: expect.stringMatching(/value cap/) },
  ]);
});
