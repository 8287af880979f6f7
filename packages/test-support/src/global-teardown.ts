import fs from "node:fs";
import { loadConfig } from "@recall/config";
import { cpuTasksDir } from "./compiled-entry";
import { runId } from "./databases";
import { dropRunDatabases } from "./test-run";

/** Drops this run's template and the per-file databases a crashed test file may have left behind; removes its build. */
export default async function globalTeardown(): Promise<void> {
  await dropRunDatabases(loadConfig().DATABASE_URL, runId());
  fs.rmSync(cpuTasksDir(runId()), { recursive: true, force: true });
}
