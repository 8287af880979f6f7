import type { AddressInfo } from "node:net";
import express from "express";
import { z } from "zod";
import { createLogger } from "@recall/telemetry";
import { errorHandler } from "./errors";

test("a schema failing on a stored row is the service's 500, logged without the row's text, not a 400 on the body", async () => {
  const lines: string[] = [];
  const logger = createLogger("error", "errors-test", { destination: { write: (line: string) => void lines.push(line) } });
  const app = express();
  // As a service reading a row it stored: the key is user text, which zod's message quotes.
  app.get("/row", () => z.strictObject({ role: z.string() }).parse({ role: "user", "Alice's diary": 1 }));
  app.use(errorHandler(logger));
  const server = app.listen(0);
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/row`);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ title: "internal", status: 500, detail: "internal error; see the server log" });
  } finally {
    server.close();
  }
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({ msg: "unhandled error", err: "ZodError", issues: ["unrecognized_keys"], path: "/row" });
  expect(lines[0]).not.toContain("diary");
});
