// The same thing said again (the example agent loop run twice, a user repeating herself in a
// new session) is one fact and one directive to readers, while each statement keeps its own
// row and provenance: retracting either source leaves the other's, and one revocation ends
// every statement of a directive.
import { spawn } from "node:child_process";
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createServerApp } from "../server-app";
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const ALICE = ["org=acme", "user=alice"];
const ALICE_Q = "scope[org]=acme&scope[user]=alice";
const INTRO = "I'm Alice, CTO at Acme. Always respond in bullet points.";

interface Fact {
  id: string;
  key?: string;
  value?: string;
  predicate?: string;
}
interface ProfileBody {
  entities: { id: string; name: string; attributes: Fact[]; relations: Fact[] }[];
  instructions: { id: string; description: string }[];
}

async function saidTwice(api: ContextClient) {
  const first = await api.turn(await api.session(), INTRO, ALICE);
  const second = await api.turn(await api.session(), INTRO, ALICE);
  expect([first.extraction.status, second.extraction.status]).toEqual(["committed", "committed"]);
  return { first, second };
}

async function profile(api: ContextClient): Promise<ProfileBody> {
  const res = await api.get(`/profile?${ALICE_Q}`);
  expect(res.status).toBe(200);
  return res.body;
}

const alice = (body: ProfileBody) => body.entities.find((e) => e.name === "Alice")!;

test("profile, state and query show a restated fact and directive once, as the latest statement", async () => {
  const api = contextClient(h.app, await createContext(h.app, "restated"));
  const { second } = await saidTwice(api);

  const body = await profile(api);
  expect(body.entities.filter((e) => e.name === "Alice")).toHaveLength(1);
  expect(alice(body).attributes.map((a) => [a.key, a.value])).toEqual([["role", "CTO"]]);
  expect(alice(body).relations.map((r) => r.predicate)).toEqual(["works_at"]);
  expect(body.instructions.map((i) => i.description)).toEqual(["Always respond in bullet points"]);

  const provenance = await api.get(`/facts/${alice(body).attributes[0]!.id}/provenance?${ALICE_Q}`);
  expect(provenance.body.source).toMatchObject({ type: "turn", id: second.turn_id });

  const state = await api.post("/state", { scope: { org: "acme", user: "alice" } });
  expect(state.status).toBe(200);
  expect(JSON.stringify(state.body).match(/"CTO"/g)).toHaveLength(1);

  const found = await api.post("/query", { query: "Alice role CTO", scope: { org: "acme", user: "alice" }, limit: 10 });
  expect(found.body.results.filter((r: { kind: string }) => r.kind === "attribute")).toHaveLength(1);

  // History is the audit trail: both statements, both current.
  const history = await api.get(`/entities/${alice(body).id}/history?${ALICE_Q}`);
  const roles = history.body.values.filter((v: Fact) => v.key === "role");
  expect(roles.map((r: Fact & { current: boolean }) => [r.value, r.current])).toEqual([
    ["CTO", true],
    ["CTO", true],
  ]);
});

test("retracting the latest statement leaves the fact and directive backed by the earlier one", async () => {
  const api = contextClient(h.app, await createContext(h.app, "restated-retract"));
  const { first, second } = await saidTwice(api);
  const retracted = await api.post(`/turns/${second.turn_id}/retract`, { reason: "said twice by mistake" });
  expect(retracted.status).toBe(200);

  const body = await profile(api);
  expect(alice(body).attributes.map((a) => [a.key, a.value])).toEqual([["role", "CTO"]]);
  expect(body.instructions.map((i) => i.description)).toEqual(["Always respond in bullet points"]);
  const provenance = await api.get(`/facts/${alice(body).attributes[0]!.id}/provenance?${ALICE_Q}`);
  expect(provenance.body.source).toMatchObject({ type: "turn", id: first.turn_id });
});

test("one revocation ends every statement of a directive", async () => {
  const api = contextClient(h.app, await createContext(h.app, "restated-revoke"));
  await saidTwice(api);
  const stop = await api.turn(await api.session(), "Stop using bullet points.", ALICE);
  expect(stop.extraction.status).toBe("committed");
  expect((await profile(api)).instructions).toEqual([]);
  const history = await api.get(`/instructions?${ALICE_Q}&include_revoked=true`);
  expect(history.body.instructions.map((i: { active: boolean }) => i.active)).toEqual([false, false]);
  // Paged like every list: limit=1 gives them one at a time, oldest first, then a null cursor.
  const first = await api.get(`/instructions?${ALICE_Q}&include_revoked=true&limit=1`);
  const second = await api.get(`/instructions?${ALICE_Q}&include_revoked=true&limit=1&cursor=${first.body.next_cursor}`);
  const paged = [...first.body.instructions, ...second.body.instructions].map((i: { id: string }) => i.id);
  expect(paged).toEqual(history.body.instructions.map((i: { id: string }) => i.id));
  expect(second.body.next_cursor).toBeNull();
});

/** The README's agent loop (examples/agent-loop.ts) as a user runs it: its own process, a new session each run. */
async function runAgentLoop(baseUrl: string, contextId: string, apiKey: string): Promise<string> {
  const script = path.resolve(__dirname, "../../../../examples/agent-loop.ts");
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, RECALL_URL: baseUrl, RECALL_CONTEXT_ID: contextId, RECALL_API_KEY: apiKey },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout!.on("data", (c: Buffer) => output.push(c.toString()));
  child.stderr!.on("data", (c: Buffer) => output.push(c.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`the agent loop exited ${code}:\n${output.join("")}`);
  return output.join("");
}

test("the README's agent loop run twice in one context: one role=CTO and one bullet-point instruction, both statements behind them", async () => {
  const server: Server = await new Promise((resolve) => {
    const listening = createServerApp(h.api).listen(0, "127.0.0.1", () => resolve(listening));
  });
  try {
    const ctx = await createContext(h.app, "agent-loop-twice");
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (let run = 0; run < 2; run++) expect(await runAgentLoop(baseUrl, ctx.contextId, ctx.apiKey)).toMatch(/5\. provenance:/);
    const api = contextClient(h.app, ctx);
    const body = await profile(api);
    expect(alice(body).attributes.map((a) => `${a.key}=${a.value}`)).toEqual(["role=CTO"]);
    expect(body.instructions.map((i) => i.description)).toEqual(["Always respond in bullet points"]);
    const state = await api.post("/state", { scope: { org: "acme", user: "alice" } });
    expect(state.body.facts.filter((f: Fact) => f.key === "role").map((f: Fact) => f.value)).toEqual(["CTO"]);
    expect(state.body.instructions).toHaveLength(1);
    // Restatements add provenance, not rows a reader sees: the history keeps both statements, from two sessions.
    const history = await api.get(`/entities/${alice(body).id}/history?${ALICE_Q}`);
    const roles = history.body.values.filter((v: Fact) => v.key === "role");
    expect(roles).toHaveLength(2);
    const sessions = await h.api.db.turn.findMany({ where: { contextId: ctx.contextId }, select: { sessionId: true } });
    expect(new Set(sessions.map((t) => t.sessionId)).size).toBe(2);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
