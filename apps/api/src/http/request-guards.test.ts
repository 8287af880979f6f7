import { DomainError } from "@recall/contracts";
import { z } from "zod";
import { MAX_REPORTED_ISSUES } from "./errors";
import { MAX_JSON_ARRAY_ITEMS, MAX_JSON_DEPTH, jsonShapeProblem } from "./request-guards";
import { parseInput } from "./route-definition";

const bytes = (text: string) => Buffer.from(text);
const caps = (depth: number, arrayItems = MAX_JSON_ARRAY_ITEMS) => ({ depth, arrayItems });
const fieldOf = (text: string, depth = MAX_JSON_DEPTH, arrayItems = MAX_JSON_ARRAY_ITEMS) =>
  jsonShapeProblem(bytes(text), caps(depth, arrayItems))?.fields.map((e) => e.field);

test("nesting is counted outside strings only, byte by byte", () => {
  expect(fieldOf(`${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`)).toBeUndefined();
  expect(fieldOf(`${"[".repeat(MAX_JSON_DEPTH + 1)}${"]".repeat(MAX_JSON_DEPTH + 1)}`)).toEqual(["body"]);
  expect(fieldOf(JSON.stringify({ text: "[".repeat(500) }), 2)).toBeUndefined();
  expect(fieldOf(JSON.stringify({ text: 'a \\" [[[ "' }), 1)).toBeUndefined();
  expect(fieldOf('{"a":{"b":{"c":1}}}', 2)).toEqual(["body"]);
});

test("an array over the cap is named by its path; commas in strings and objects are not items", () => {
  expect(fieldOf(JSON.stringify({ attributes: [{}, {}, {}] }), MAX_JSON_DEPTH, 3)).toBeUndefined();
  expect(fieldOf(JSON.stringify({ attributes: [{}, {}, {}, {}] }), MAX_JSON_DEPTH, 3)).toEqual(["body.attributes"]);
  expect(fieldOf(JSON.stringify({ a: "x,y,z,w", b: { c: 1, d: 2, e: 3, f: 4 }, g: ["1,2,3,4"] }), MAX_JSON_DEPTH, 3)).toBeUndefined();
  const nested = { scope: [], turns: [{ role: "user" }, { content: "a,b", 'sc"ope': [1, 2, 3, 4] }] };
  expect(fieldOf(JSON.stringify(nested), MAX_JSON_DEPTH, 3)).toEqual(['body.turns.1.sc"ope']);
  const million = JSON.stringify({ attributes: Array.from({ length: 1_000_000 }, () => ({})) });
  expect(fieldOf(million)).toEqual(["body.attributes"]);
});

test(`validation names at most ${MAX_REPORTED_ISSUES} issues and stops early on a large body`, () => {
  const Body = z.strictObject({ attributes: z.array(z.strictObject({ entity: z.string(), key: z.string() })) });
  const attempt = (count: number) => {
    try {
      parseInput(Body, { attributes: Array.from({ length: count }, () => ({})) }, "body");
    } catch (err) {
      if (err instanceof DomainError) return err;
      throw err;
    }
    throw new Error("a body of empty items was accepted");
  };
  const small = attempt(50);
  expect(small.fields).toHaveLength(MAX_REPORTED_ISSUES);
  expect(small.fields[0]?.field).toBe("body.attributes.0.entity");
  expect(small.message).toMatch(/; and 80 more$/);
  // zod's early abort (see route-definition.ts): the first failing item only, not 20,000 issues.
  const large = attempt(MAX_JSON_ARRAY_ITEMS);
  expect(large.fields.map((e) => e.field)).toEqual(["body.attributes.0.entity"]);
  expect(large.message).not.toMatch(/more$/);
});
