// Scope precedence on real Postgres: a user's newer value of a single-valued fact, written
// in a narrower scope than the org's value, is what that user's reader sees in state,
// profile and search; everyone else still sees the org's value, and history keeps both.
import { readFacts } from "./fact-query";
import { readProfile } from "./profile-reader";
import { searchMemory } from "./search/search-reader";
import { SEARCH_KINDS } from "./search/search-types";
import { addTurn, attribute, ingest, eachTestInNewContext, type MemoryFixture } from "../testing/memory-fixture";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const ORG = ["org=acme"];
const ALICE = ["org=acme", "user=alice"];
const BOB = ["org=acme", "user=bob"];
const JAN = new Date("2025-01-10T09:00:00Z");
const MAR = new Date("2025-03-05T09:00:00Z");

async function say(content: string, at: Date, scope: string[], key: string, value: string, quote: string) {
  const turn = await addTurn(f, { content, at, scope });
  await ingest(f, turn, { attributes: [attribute("Alice Chen", key, value, quote)] });
}

const valuesOf = async (key: string, scope: string[], extra: { validAt?: Date; recordedAsOf?: Date } = {}) =>
  (await readFacts(f.db, { contextId: f.contextId, scope, validAt: extra.validAt ?? new Date(), recordedAsOf: extra.recordedAsOf }))
    .filter((fact) => fact.kind === "attribute" && fact.key === key)
    .map((fact) => (fact.kind === "attribute" ? fact.value : ""));

test("alice's later correction in her own scope wins for her; the org's value stays for everyone else", async () => {
  await say("Alice Chen is our CTO.", JAN, ORG, "title", "CTO", "Alice Chen is our CTO");
  const beforeCorrection = new Date();
  await say("Actually my title is VP of Engineering.", MAR, ALICE, "title", "VP of Engineering", "my title is VP of Engineering");

  expect(await valuesOf("title", ALICE)).toEqual(["VP of Engineering"]);
  expect(await valuesOf("title", BOB)).toEqual(["CTO"]);
  expect(await valuesOf("title", ORG)).toEqual(["CTO"]);
  // Valid time before her correction held, and system time before it was recorded: the org's value.
  expect(await valuesOf("title", ALICE, { validAt: new Date("2025-02-01T00:00:00Z") })).toEqual(["CTO"]);
  expect(await valuesOf("title", ALICE, { recordedAsOf: beforeCorrection })).toEqual(["CTO"]);
  // History (no valid-time filter) keeps both; nothing was closed.
  const all = await readFacts(f.db, { contextId: f.contextId, scope: ALICE });
  expect(all.map((fact) => (fact.kind === "attribute" ? [fact.value, fact.superseded_by] : []))).toEqual([
    ["CTO", null],
    ["VP of Engineering", null],
  ]);

  const profile = await readProfile(f.db, { contextId: f.contextId, scope: ALICE, limit: 10 });
  const alice = profile.entities.find((e) => e.name === "Alice Chen");
  expect(alice?.attributes.map((a) => a.value)).toEqual(["VP of Engineering"]);
  const search = async (scope: string[]) =>
    (
      await searchMemory(f.db, { contextId: f.contextId, scope, query: "Alice Chen title", limit: 10, kinds: SEARCH_KINDS, match: "any" })
    ).results
      .filter((r) => r.kind === "attribute")
      .map((r) => r.text);
  expect(await search(ALICE)).toEqual(["Alice Chen title: VP of Engineering"]);
  expect(await search(BOB)).toEqual(["Alice Chen title: CTO"]);
});

test("an org value stated after the user's does not hide it: both stay current for her", async () => {
  await say("Actually my title is VP of Engineering.", JAN, ALICE, "title", "VP of Engineering", "my title is VP of Engineering");
  await say("Alice Chen is our CTO.", MAR, ORG, "title", "CTO", "Alice Chen is our CTO");

  expect((await valuesOf("title", ALICE)).sort()).toEqual(["CTO", "VP of Engineering"]);
});

test("multi-valued keys are never shadowed: her likes add to the org's", async () => {
  await say("Alice Chen likes climbing.", JAN, ORG, "likes", "climbing", "Alice Chen likes climbing");
  await say("I like jazz.", MAR, ALICE, "likes", "jazz", "I like jazz");

  expect((await valuesOf("likes", ALICE)).sort()).toEqual(["climbing", "jazz"]);
});
