// The export format's declarations: line fields, and the order kinds come in.
import { fieldOf, KIND_BY_NAME, KINDS } from "./export-format";
import { targetsOf } from "./import-references";

test.each(KINDS.map((k) => [k.kind, k] as const))(
  "a %s line: id first, id columns among its columns, no field named kind",
  (_kind, spec) => {
    expect(spec.columns[0]).toBe("id");
    for (const column of [...spec.ids, ...(spec.idLists ?? []), ...Object.keys(spec.values ?? {})]) expect(spec.columns).toContain(column);
    const fields = spec.columns.map((c) => fieldOf(spec, c));
    expect(fields).not.toContain("kind");
    expect(new Set(fields).size).toBe(fields.length);
    expect(KIND_BY_NAME.get(spec.kind)).toBe(spec);
  },
);

test("a candidate's and a review's own kind travel under another field name", () => {
  expect(fieldOf(KIND_BY_NAME.get("candidate")!, "kind")).toBe("candidate_kind");
  expect(fieldOf(KIND_BY_NAME.get("review")!, "kind")).toBe("review_kind");
  expect(fieldOf(KIND_BY_NAME.get("review")!, "status")).toBe("status");
});

test("every kind comes after the kinds its ids name (facts and documents may name their own kind)", () => {
  const position = new Map(KINDS.map((k, i) => [k.table, i]));
  for (const [at, spec] of KINDS.entries()) {
    for (const column of [...spec.ids, ...(spec.idLists ?? [])].filter((c) => c !== "id")) {
      for (const target of targetsOf(spec, column)) {
        const table = target.split(".")[0]!;
        if (position.has(table)) expect([spec.kind, column, position.get(table)! <= at]).toEqual([spec.kind, column, true]);
      }
    }
  }
});
