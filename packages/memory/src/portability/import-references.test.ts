import { KINDS } from "./export-format";
import { PIPELINE_WORK, REFERENCE_TARGETS, targetsOf } from "./import-references";

const TABLES = new Set([...KINDS.map((k) => k.table), PIPELINE_WORK, "extraction_windows"]);

test("every id column of every kind names the tables it can point at, so a new column cannot skip the check", () => {
  for (const spec of KINDS) {
    expect(Object.keys(REFERENCE_TARGETS)).toContain(spec.kind);
    for (const column of [...spec.ids, ...(spec.idLists ?? [])]) {
      const targets = targetsOf(spec, column);
      expect(targets.length).toBeGreaterThan(0);
      for (const target of targets) expect(TABLES).toContain(target.split(".")[0]);
    }
    const declared = Object.keys(REFERENCE_TARGETS[spec.kind]!);
    for (const column of declared) expect([...spec.ids, ...(spec.idLists ?? [])]).toContain(column);
  }
});
