// The client's read-your-writes: the newest consistency token a call was answered with goes with every later call.
// The server's side (a read presenting it sees the write on a replica) is apps/api/src/e2e/read-replica.replica.test.ts.
import { RecallClient } from "./recall-client";

/** A fetch answering each call with the next scripted token (none: no header), recording what each call sent. */
function scripted(tokens: (string | undefined)[]) {
  const sent: (string | null)[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    sent.push(new Headers(init?.headers).get("Recall-Consistency"));
    const token = tokens.shift();
    const headers: Record<string, string> = { "Content-Type": "application/json", ...(token ? { "Recall-Consistency": token } : {}) };
    return new Response(JSON.stringify({ session_id: "s", entities: [], instructions: [], next_cursor: null }), { status: 200, headers });
  };
  return { sent, fetch: fetch as typeof globalThis.fetch };
}

test("the newest token answered is sent with every call after it, also when answers cross", async () => {
  const server = scripted(["1/A0", "0/FFFFFFFF", undefined]);
  const recall = new RecallClient({ baseUrl: "http://recall.test", contextId: "c", apiKey: "k", fetch: server.fetch });
  await recall.sessions.create();
  await recall.sessions.create();
  await recall.profile({});
  expect(server.sent).toEqual([null, "1/A0", "1/A0"]);
});

test("with readYourWrites off no token is sent", async () => {
  const server = scripted(["1/A0", undefined]);
  const recall = new RecallClient({
    baseUrl: "http://recall.test",
    contextId: "c",
    apiKey: "k",
    fetch: server.fetch,
    readYourWrites: false,
  });
  await recall.sessions.create();
  await recall.profile({});
  expect(server.sent).toEqual([null, null]);
});
