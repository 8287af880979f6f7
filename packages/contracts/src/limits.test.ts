// The scope caps in every form a scope takes: a list, a map, one entry; each refusal names the cap it met.
import { ScopeForms, WRITE_CAPS, withinScopeEntries, ScopeEntry, ScopeObject } from "./limits";
import { z } from "zod";

const messages = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues.map((i) => [i.path.join("."), i.message]);

const many = Array.from({ length: WRITE_CAPS.scope_entries + 1 }, (_, i) => `k${i}=v`);
const long = "v".repeat(WRITE_CAPS.scope_entry);
const longKey = "k".repeat(WRITE_CAPS.scope_key + 1);

test.each([
  ["a list of too many entries", many, "", "scope_entries"],
  ["a map of too many entries", Object.fromEntries(many.map((e) => e.split("="))), "", "scope_entries"],
  ["a list entry too long", ["org=acme", `user=${long}`], "1", "scope_entry"],
  ["a map entry too long", { user: long }, "user", "scope_entry"],
  ["a list entry's key too long", [`${longKey}=v`], "0", "scope_key"],
])("%s is refused naming the cap", (_what, scope, path, cap) => {
  expect(messages(ScopeForms, scope)).toEqual([[path, expect.stringContaining(`(${cap} cap)`)]]);
});

test("a map's key too long names the key cap", () => {
  expect(messages(ScopeObject, { [longKey]: "v" })?.[0]?.[1]).toContain("(scope_key cap)");
});

test("a reader's scope, one entry or many, has the same count cap", () => {
  const query = withinScopeEntries(z.union([ScopeObject, z.array(ScopeEntry), ScopeEntry]));
  expect(messages(query, many)).toEqual([["", expect.stringContaining("(scope_entries cap)")]]);
  expect(query.safeParse("org=acme").success).toBe(true);
});

test("a scope at every cap passes", () => {
  const full = Array.from({ length: WRITE_CAPS.scope_entries }, (_, i) => `${String(i).padStart(WRITE_CAPS.scope_key, "k")}=v`);
  expect(ScopeForms.safeParse(full).success).toBe(true);
  expect(ScopeForms.safeParse([`k=${long.slice(2)}`]).success).toBe(true);
});
