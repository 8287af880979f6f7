// A waiting turn learns of its completion from Postgres NOTIFY, not by polling: with the
// fallback poll set longer than the request timeout, only a notification can answer it in
// time. With notifications lost (the listening connection gone), the fallback poll still does.
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext } from "../testing/api-client";

let h: Harness;

afterEach(async () => {
  await h?.close();
});

const TURN = "I'm Alice, CTO at Acme. Always respond in bullet points.";

test("the turn is answered committed through its notification (fallback poll far beyond the timeout)", async () => {
  h = await startHarness({ TURN_FALLBACK_POLL_MS: "600000", TURN_TIMEOUT_MS: "30000" });
  await h.api.turns.listener.start();
  const client = contextClient(h.app, await createContext(h.app, "push"));
  const session = await client.session();
  const started = Date.now();
  const answer = await client.turn(session, TURN, ["org=acme"]);
  expect(answer.extraction.status).toBe("committed");
  expect(Date.now() - started).toBeLessThan(30_000);
  expect(h.api.turns.waiting).toBe(0);
});

test("a lost notification: the slow fallback poll still answers the turn committed", async () => {
  h = await startHarness({ TURN_FALLBACK_POLL_MS: "200", TURN_TIMEOUT_MS: "30000" });
  // Every notification from here on is lost: the API's listening connection is gone.
  await h.api.turns.listener.close();
  const client = contextClient(h.app, await createContext(h.app, "lost"));
  const session = await client.session();
  const answer = await client.turn(session, TURN, ["org=acme"]);
  expect(answer.extraction.status).toBe("committed");
});
