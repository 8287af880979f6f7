import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { parseQueues, serveMetrics } from "./main";

test("--queues picks the processors a process runs; all by default", () => {
  expect(parseQueues([])).toEqual(["extract_assertions", "validate_artifacts", "commit_artifacts", "truth_maintenance", "extract_window"]);
  expect(parseQueues(["--queues", "commit_artifacts,truth_maintenance"])).toEqual(["commit_artifacts", "truth_maintenance"]);
  expect(parseQueues(["--queues=extract_assertions"])).toEqual(["extract_assertions"]);
});

test("unknown or missing queue names are refused with the list of valid ones", () => {
  expect(() => parseQueues(["--queues", "extract,commit_artifacts"])).toThrow(/unknown: extract/);
  expect(() => parseQueues(["--queues"])).toThrow(/extract_assertions, validate_artifacts/);
});

test("a metrics port already taken fails the start, naming WORKER_METRICS_PORT; a free one is served", async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, resolve));
  const { port } = taken.address() as AddressInfo;
  try {
    await expect(serveMetrics(port)).rejects.toThrow(
      `port ${port} is already in use (another worker on this host?); set WORKER_METRICS_PORT`,
    );
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
  const served = (await serveMetrics(port))!;
  try {
    // Bound at once, answering only once the worker has started.
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(503);
    served.ready();
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
  } finally {
    await new Promise((resolve) => served.server.close(resolve));
  }
  expect(await serveMetrics(0)).toBeUndefined();
});
