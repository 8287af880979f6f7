import { SubjectType } from "../queues";
import { SUBJECT_KINDS, kindOf } from "./index";

test("every subject type has its kind, filed under its own type", () => {
  expect(Object.keys(SUBJECT_KINDS).sort()).toEqual([...SubjectType.options].sort());
  for (const type of SubjectType.options) expect(kindOf(type).type).toBe(type);
  expect(() => kindOf("letter")).toThrow(/unknown subject type "letter"/);
});

test("the traits agree with each other", () => {
  for (const kind of Object.values(SUBJECT_KINDS)) {
    // A group runs its members' stages; a review commit commits another input's candidates: neither has text of its own.
    if (kind.group || kind.commitsApproved) expect({ type: kind.type, source: kind.source, unit: kind.unit }).toEqual({ type: kind.type });
    // Only an input whose text is read has text units, and only an extracted one is parsed or grouped.
    if (kind.unit) expect(kind.source).toBeDefined();
    if (kind.parsed || kind.groupable) expect({ type: kind.type, direct: kind.direct }).toEqual({ type: kind.type, direct: false });
    // A caller waits only on work in the interactive lane.
    if (kind.chainable)
      expect({ type: kind.type, alwaysBackground: kind.alwaysBackground }).toEqual({ type: kind.type, alwaysBackground: false });
    if (kind.instructs !== "never") expect(kind.source).toBeDefined();
  }
});
