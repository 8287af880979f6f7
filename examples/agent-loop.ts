// The README's agent loop, written with @recall/client: what an agent does around each model
// call. Post what was said, read the profile into the system prompt, search memory when the
// conversation needs more, and follow a fact back to the words it came from.
//
//   pnpm example:agent
//
// Talks to RECALL_URL (default http://127.0.0.1:8080) as RECALL_CONTEXT_ID with RECALL_API_KEY (the Quickstart's exports); without
// those it creates a context with the admin key (ADMIN_API_KEY, else the .data/admin-api-key that
// `npm start` made) and prints how to reuse it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { RecallClient, RecallError, type Profile } from "@recall/client";

const SCOPE = { org: "acme", user: "alice" };

async function main(): Promise<void> {
  const recall = await connect(process.env.RECALL_URL ?? "http://127.0.0.1:8080");
  const { session_id } = await recall.sessions.create();

  // 1. Post the user's turn; the answer comes after its extraction is committed.
  const turn = await recall.turns.post(session_id, {
    role: "user",
    content: "I'm Alice, CTO at Acme. Always respond in bullet points.",
    scope: ["org=acme", "user=alice"],
  });
  console.log("1. extraction:", JSON.stringify(turn.extraction));

  // 2. Fetch the profile for this user (fast: fetch it before every system prompt).
  const profile = await recall.profile(SCOPE);
  for (const entity of profile.entities) {
    console.log("2. entity:", JSON.stringify({ name: entity.name, attributes: entity.attributes.map((a) => `${a.key}=${a.value}`) }));
  }

  // 3. Build the system prompt: standing instructions first, then what is known.
  console.log(`3. system prompt:\n${systemPrompt(profile)}`);

  // 4. Query memory and raw text when the conversation needs more.
  const found = await recall.query({ query: "what does Alice do at Acme", scope: SCOPE, limit: 5 });
  for (const r of found.results) console.log("4. result:", JSON.stringify({ kind: r.kind, text: r.text, score: r.score, link: r.link }));

  // 5. Follow a fact to its source span.
  const fact = profile.entities.find((e) => e.name === "Alice")?.attributes[0];
  if (!fact) throw new Error("no attribute of Alice in the profile; did the turn commit?");
  const provenance = await recall.facts.provenance(fact.id, { scope: SCOPE });
  const { source, span, extraction } = provenance;
  console.log("5. provenance:", JSON.stringify({ source, span, extraction }));
}

function systemPrompt(profile: Profile): string {
  const rules = profile.instructions.map((i) => `- ${i.label}: ${i.description}`);
  const facts = profile.entities.flatMap((e) => e.attributes.map((a) => `- ${e.name} ${a.key}: ${a.value}`));
  return `Follow these instructions:\n${rules.join("\n")}\n\nKnown facts:\n${facts.join("\n")}`;
}

/** The context named in the environment, or a new one made with the admin key. */
async function connect(baseUrl: string): Promise<RecallClient> {
  // RECALL_CONTEXT: the name this example read before it followed the Quickstart's spelling.
  const { RECALL_CONTEXT_ID: contextId = process.env.RECALL_CONTEXT, RECALL_API_KEY: apiKey } = process.env;
  if (contextId && apiKey) return new RecallClient({ baseUrl, contextId, apiKey });
  const admin = new RecallClient({ baseUrl, adminKey: adminKey() });
  const created = await admin.admin.contexts.create({ name: "agent-loop example" });
  console.log(`created a context; to reuse it: RECALL_CONTEXT_ID=${created.context_id} RECALL_API_KEY=${created.api_key}`);
  return admin.withContext(created.context_id, created.api_key);
}

function adminKey(): string {
  if (process.env.ADMIN_API_KEY) return process.env.ADMIN_API_KEY;
  const file = path.resolve(__dirname, "..", ".data", "admin-api-key");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  throw new Error("set RECALL_CONTEXT_ID and RECALL_API_KEY, or ADMIN_API_KEY (or run `npm start` here, which writes .data/admin-api-key)");
}

main().catch((err: unknown) => {
  if (err instanceof RecallError) {
    console.error(`${err.status} ${err.title}: ${err.detail}`, err.errors.length ? err.errors : "");
  } else {
    console.error(err);
  }
  process.exit(1);
});
