// The time rule end to end (packages/memory/src/truth/time-rule.ts): posted seconds apart in one
// session, "I live in Berlin." observes a home and "I moved to Paris last week." dates a
// move. The move is the last word: Paris is current and Berlin ended at the move's date
// (last week, before Berlin was even mentioned), in /profile, /state and the history.
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";

let h: Harness;
let api: ContextClient;
const ALICE = ["org=acme", "user=alice"];
const ALICE_Q = "scope[org]=acme&scope[user]=alice";
let movedAt: Date;

interface Relation {
  id: string;
  predicate: string;
  object: { name: string };
}

beforeAll(async () => {
  h = await startHarness();
  api = contextClient(h.app, await createContext(h.app, "acme"));
  const session = await api.session();
  const said = Date.now();
  await api.post(`/sessions/${session}/turns`, { role: "user", name: "Alice", content: "I live in Berlin.", scope: ALICE }).expect(200);
  await api
    .post(`/sessions/${session}/turns`, { role: "user", name: "Alice", content: "I moved to Paris last week.", scope: ALICE })
    .expect(200);
  movedAt = new Date(said - 7 * 86_400_000);
});

afterAll(async () => {
  await h?.close();
});

const home = (relations: Relation[]) => relations.filter((r) => r.predicate === "lives_in").map((r) => r.object.name);

test("/profile shows Paris as Alice's home", async () => {
  const res = await api.get(`/profile?${ALICE_Q}`);
  const alice = res.body.entities.find((e: { name: string }) => e.name === "Alice");
  expect(home(alice.relations)).toEqual(["Paris"]);
});

test("/state shows Paris now, and Berlin before the move", async () => {
  const now = await api.post("/state", { scope: ALICE });
  const current = now.body.facts.filter((f: { predicate?: string }) => f.predicate === "lives_in");
  expect(current.map((f: { object: { name: string } }) => f.object.name)).toEqual(["Paris"]);
  const before = await api.post("/state", { scope: ALICE, as_of: new Date(movedAt.getTime() - 86_400_000 * 14).toISOString() });
  expect(before.body.facts.filter((f: { predicate?: string }) => f.predicate === "lives_in")).toEqual([]);
});

test("/entities/{id}/history closes Berlin at the move's date, superseded by Paris", async () => {
  const profile = await api.get(`/profile?${ALICE_Q}`);
  const alice = profile.body.entities.find((e: { name: string }) => e.name === "Alice");
  const res = await api.get(`/entities/${alice.id}/history?${ALICE_Q}`);
  expect(res.status).toBe(200);
  const homes = res.body.values.filter((v: { predicate?: string }) => v.predicate === "lives_in");
  const berlin = homes.find((v: { object: { name: string } }) => v.object.name === "Berlin");
  const paris = homes.find((v: { object: { name: string } }) => v.object.name === "Paris");
  expect(paris).toMatchObject({ current: true, valid_to: null, superseded_by: null });
  expect(berlin).toMatchObject({ current: false, superseded_by: paris.id, valid_to: paris.valid_from });
  // "last week" is the week before the turn: Berlin ended then, before "I live in Berlin" was said.
  const end = new Date(berlin.valid_to).getTime();
  expect(end).toBeLessThan(new Date(berlin.valid_from).getTime());
  expect(Math.abs(end - movedAt.getTime())).toBeLessThan(8 * 86_400_000);
});
