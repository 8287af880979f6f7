import { sameScope, scopeFromQuery, scopeVisible } from "./scope";

test.each([
  [["org=acme"], ["org=acme", "user=alice"], true],
  [["org=acme"], ["org=acme", "user=bob"], true],
  [["org=acme", "user=alice"], ["org=acme", "user=alice"], true],
  [["org=acme", "user=alice"], ["org=acme", "user=bob"], false],
  [["org=acme", "user=alice"], ["org=acme"], false],
  [[], ["org=acme"], true],
  [["org=other"], ["org=acme", "user=alice"], false],
])("written %j is visible to reader %j: %s", (written, reader, visible) => {
  expect(scopeVisible(written, reader)).toBe(visible);
});

test("scope from a query string object, a list, or nothing", () => {
  expect(scopeFromQuery({ user: "alice", org: "acme" })).toEqual(["org=acme", "user=alice"]);
  expect(scopeFromQuery(["user=alice", "org=acme", "org=acme"])).toEqual(["org=acme", "user=alice"]);
  expect(scopeFromQuery(undefined)).toEqual([]);
  expect(sameScope(["b=2", "a=1"], ["a=1", "b=2"])).toBe(true);
});
