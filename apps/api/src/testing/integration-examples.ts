// The integration examples of docs/integrations.md as the tests run them (integrations.e2e: inside the repository;
// release-install.release: from the npm-installed tarballs): each program, the agent model's system prompt, and the
// wait between a program's two runs until what the first run said is committed.
import { readFileSync } from "node:fs";
import path from "node:path";
import { RecallClient } from "@recall/client";
import { waitFor } from "@recall/test-support";

export const REPO = path.resolve(__dirname, "../../../..");
export const INTEGRATIONS_PAGE = readFileSync(path.join(REPO, "docs/integrations.md"), "utf8");

/** The ```ts fence after `<!-- integration: name -->`. */
export function integrationExample(name: string): string {
  const at = INTEGRATIONS_PAGE.indexOf(`<!-- integration: ${name} -->\n\`\`\`ts\n`);
  if (at === -1) throw new Error(`docs/integrations.md has no example "${name}"`);
  const start = INTEGRATIONS_PAGE.indexOf("\n", INTEGRATIONS_PAGE.indexOf("```ts", at)) + 1;
  return INTEGRATIONS_PAGE.slice(start, INTEGRATIONS_PAGE.indexOf("\n```", start));
}

/** The system message of an OpenAI chat completions request. */
export function systemOf(body: Record<string, unknown>): string {
  const messages = body.messages as { role: string; content: unknown }[];
  return (messages.find((m) => m.role === "system")?.content as string | undefined) ?? "";
}

/** Waits until /context for "me" in the example's scope holds `fact`: run 1's exchange is committed. */
export async function waitUntilRemembered(env: NodeJS.ProcessEnv, scope: Record<string, string>, fact: string): Promise<void> {
  const recall = new RecallClient({ baseUrl: env.RECALL_URL, contextId: env.RECALL_CONTEXT_ID, apiKey: env.RECALL_API_KEY });
  await waitFor(async () => (await recall.context({ message: "What do you know about me?", scope })).text.includes(fact), {
    what: `"${fact}" in the context of ${JSON.stringify(scope)}`,
  });
}
