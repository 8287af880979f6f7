import { loadConfig } from "@recall/config";
import { removeRunBuilds } from "./compiled-entry";
import { runId } from "./databases";
import { dropRunDatabases } from "./test-run";

/** Drops this run's template and the per-file databases a crashed test file may have left behind; removes its builds. */
export default async function globalTeardown(): Promise<void> {
  await dropRunDatabases(loadConfig().DATABASE_URL, runId());
  removeRunBuilds(runId());
}
