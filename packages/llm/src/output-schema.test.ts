import { z } from "zod";
import { assertSchemaName, jsonSchemaFor, strictJsonSchemaFor } from "./output-schema";

describe("jsonSchemaFor (Anthropic tool input)", () => {
  test("describes what the model writes: a defaulted field is not required", () => {
    const json = jsonSchemaFor(z.object({ name: z.string(), lang: z.string().default("en") }));
    expect(json).toMatchObject({ type: "object", required: ["name"] });
  });

  test("rejects a non-object root", () => {
    expect(() => jsonSchemaFor(z.array(z.string()))).toThrow(/z.object at the top level/);
  });
});

describe("strictJsonSchemaFor (OpenAI strict mode)", () => {
  test("closes every object and requires every property, nested ones included", () => {
    const schema = z.object({
      facts: z.array(z.object({ text: z.string(), lang: z.string().default("en") })),
      note: z.string().nullable(),
      kind: z.discriminatedUnion("t", [z.object({ t: z.literal("a") }), z.object({ t: z.literal("b"), n: z.number() })]),
    });
    expect(strictJsonSchemaFor(schema, "facts")).toMatchObject({
      additionalProperties: false,
      required: ["facts", "note", "kind"],
      properties: {
        facts: { items: { additionalProperties: false, required: ["text", "lang"] } },
        note: { type: ["string", "null"] },
        kind: { anyOf: [{ additionalProperties: false }, { additionalProperties: false, required: ["t", "n"] }] },
      },
    });
  });

  test("refuses a plainly optional property rather than forcing the model to invent a value", () => {
    expect(() => strictJsonSchemaFor(z.object({ age: z.number().optional() }), "x")).toThrow(
      /properties\/age.*\.optional\(\)` without `\.nullable\(\)/,
    );
  });

  test("refuses open objects", () => {
    expect(() => strictJsonSchemaFor(z.object({ tags: z.record(z.string(), z.string()) }), "x")).toThrow(
      /properties\/tags.*additionalProperties: false/,
    );
  });
});

describe("assertSchemaName", () => {
  test("accepts tool-safe names and rejects others", () => {
    expect(() => assertSchemaName("extract_facts-v2")).not.toThrow();
    expect(() => assertSchemaName("extract facts")).toThrow(TypeError);
    expect(() => assertSchemaName("x".repeat(65))).toThrow(TypeError);
  });
});
