// The write caps as the import applies them: every capped column is a column of its kind, every scope column is
// capped, and a value just over a cap is named with the column and where inside it.
import { WRITE_CAPS } from "@recall/contracts";
import { KIND_BY_NAME, KINDS } from "./export-format";
import { LINE_CAPS, lineCapIssue } from "./line-caps";

test.each(Object.entries(LINE_CAPS))("the capped columns of a %s line are its own", (kind, caps) => {
  const spec = KIND_BY_NAME.get(kind);
  expect(spec).toBeDefined();
  for (const column of Object.keys(caps)) expect(spec!.columns).toContain(column);
});

test("every kind with a scope column has it capped", () => {
  const scoped = KINDS.filter((k) => k.columns.includes("scope")).map((k) => k.kind);
  expect(scoped.filter((kind) => !LINE_CAPS[kind]?.scope)).toEqual([]);
});

const over = (cap: keyof typeof WRITE_CAPS) => "x".repeat(WRITE_CAPS[cap] + 1);

test.each([
  ["turn", { content: over("content") }, "content", []],
  ["turn", { scope: Array.from({ length: WRITE_CAPS.scope_entries + 1 }, (_, i) => `k${i}=v`) }, "scope", []],
  ["turn", { scope: ["org=acme", `user=${over("scope_entry")}`] }, "scope", ["1"]],
  ["entity", { name: over("name") }, "name", []],
  ["entity", { aliases: ["ok", over("name")] }, "aliases", ["1"]],
  ["attribute", { value: over("value") }, "value", []],
  ["session", { metadata: { note: over("metadata") } }, "metadata", []],
  ["candidate", { kind: "entity", payload: { name: over("name"), type: "person", memory_category: "identity" } }, "payload", ["name"]],
])("a %s line over a cap is named by column and place", (kind, row, column, within) => {
  expect(lineCapIssue(kind, row)).toEqual({ column, within, message: expect.stringMatching(/at most/) });
});

test("a line at every cap, and null columns, pass", () => {
  const at = (cap: keyof typeof WRITE_CAPS) => "x".repeat(WRITE_CAPS[cap]);
  const scope = Array.from({ length: WRITE_CAPS.scope_entries }, (_, i) => `k${i}=${at("scope_entry").slice(4)}`);
  expect(lineCapIssue("turn", { content: at("content"), speaker: null, scope })).toBeUndefined();
  expect(lineCapIssue("entity", { name: at("name"), aliases: [at("name")], type: "person", scope: [] })).toBeUndefined();
});

test("a document line's text is held to RECALL_DOCUMENT_MAX_BYTES, in bytes, when the caller says it", () => {
  const text = "é".repeat(3);
  expect(lineCapIssue("document", { text }, { documentMaxBytes: 6 })).toBeUndefined();
  expect(lineCapIssue("document", { text }, { documentMaxBytes: 5 })).toEqual({
    column: "text",
    within: [],
    message: "at most 5 bytes (RECALL_DOCUMENT_MAX_BYTES)",
  });
  expect(lineCapIssue("document", { text })).toBeUndefined();
});
