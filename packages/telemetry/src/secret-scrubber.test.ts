import { Writable } from "node:stream";
import { createLogger } from "./logger";
import { REDACTED, scrubSecrets } from "./secret-scrubber";

test("known values and credential-shaped text are redacted; ordinary text is not", () => {
  const key = "rk_0123456789ab_SECRETsecretSECRETsecret";
  expect(scrubSecrets(`bad key ${key}`)).toBe(`bad key ${REDACTED}`);
  expect(scrubSecrets("Incorrect API key provided: sk-proj-abcdefghijkl")).toBe(`Incorrect API key provided: ${REDACTED}`);
  expect(scrubSecrets("sent Authorization: Bearer abc.def-ghi")).toBe(`sent Authorization: Bearer ${REDACTED}`);
  expect(scrubSecrets("admin is hunter22-admin", ["hunter22-admin"])).toBe(`admin is ${REDACTED}`);
  expect(scrubSecrets("short secrets such as abc are left alone", ["abc"])).toBe("short secrets such as abc are left alone");
  expect(scrubSecrets("Bearer of bad news")).toBe("Bearer of bad news");
});

test("the logger scrubs messages, fields and errors before they are written", () => {
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) });
  const logger = createLogger("info", "test", { secrets: ["provider-secret-1"], destination });
  logger.warn({ err: "401 for provider-secret-1", nested: { auth: "Bearer zzzzzzzz" } }, "call failed with provider-secret-1");
  logger.error(new Error("boom provider-secret-1"));
  const out = lines.join("");
  expect(out).not.toContain("provider-secret-1");
  expect(out).not.toContain("zzzzzzzz");
  expect(out.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(4);
});
