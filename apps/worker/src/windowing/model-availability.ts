// Whether a window (one fast-model call over many turns) can run in this process. Without a usable fast model a
// turn the rules read only in part does not wait for a window that would fail: it goes the one-turn way, where the
// rules' sure part is committed and the turn is marked awaiting a model (docs/extraction-and-skills.md).
import { providerOptions } from "@recall/config";
import { NoProviderError, createModelClient } from "@recall/llm";
import type { WorkerDeps } from "../deps";

const usable = new WeakMap<WorkerDeps["config"], boolean>();

/** The configuration does not change while the process runs: asked once per config. */
export function windowModelUsable(deps: Pick<WorkerDeps, "config">): boolean {
  const known = usable.get(deps.config);
  if (known !== undefined) return known;
  let answer = true;
  try {
    // None configured at all answers no client; one configured without its key or URL throws.
    answer = createModelClient(providerOptions(deps.config), "fast") !== undefined;
  } catch (err) {
    if (!(err instanceof NoProviderError)) throw err;
    answer = false;
  }
  usable.set(deps.config, answer);
  return answer;
}
