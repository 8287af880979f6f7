// The export format's declarations: line fields, the order kinds come in, and how an import rewrites ids.
import { fieldOf, KIND_BY_NAME, KINDS } from "./export-format";
import { targetsOf } from "./import-references";
import { remapper } from "./import";

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const A = "0b5b8f3e-6c1d-4b8e-9a51-3f0e2d7c9a10";
const B = "7d2e4c61-1f3a-4e5b-8c9d-0a1b2c3d4e5f";
const ROW = "c3a1f0e2-5b6d-4c7e-8f90-a1b2c3d4e5f6";

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

describe("remapping ids", () => {
  test("into the exported context keeps every id", () => {
    expect(remapper(A, A)(ROW)).toBe(ROW);
  });

  test("into another context derives a version 8 uuid from the target and the id, the same every run", () => {
    const id = remapper(A, B)(ROW);
    expect(id).toMatch(UUID_V8);
    expect(id).not.toBe(ROW);
    expect(remapper(A, B)(ROW)).toBe(id);
    // From the target and the id only: every reference to the row rewrites alike, whichever export it came in.
    expect(remapper(ROW, B)(ROW)).toBe(id);
  });

  test("different ids, or one id into different targets, never meet", () => {
    const ids = Array.from({ length: 200 }, (_, i) => `${ROW.slice(0, -3)}${i.toString(16).padStart(3, "0")}`);
    expect(new Set(ids.map(remapper(A, B))).size).toBe(ids.length);
    expect(remapper(B, A)(ROW)).not.toBe(remapper(A, B)(ROW));
  });
});
