import { parseQueues } from "./main";

test("--queues picks the processors a process runs; all by default", () => {
  expect(parseQueues([])).toEqual(["extract_assertions", "validate_artifacts", "commit_artifacts", "truth_maintenance", "extract_window"]);
  expect(parseQueues(["--queues", "commit_artifacts,truth_maintenance"])).toEqual(["commit_artifacts", "truth_maintenance"]);
  expect(parseQueues(["--queues=extract_assertions"])).toEqual(["extract_assertions"]);
});

test("unknown or missing queue names are refused with the list of valid ones", () => {
  expect(() => parseQueues(["--queues", "extract,commit_artifacts"])).toThrow(/unknown: extract/);
  expect(() => parseQueues(["--queues"])).toThrow(/extract_assertions, validate_artifacts/);
});
