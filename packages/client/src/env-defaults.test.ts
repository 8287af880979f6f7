// The connection defaults: RECALL_URL, RECALL_CONTEXT_ID and RECALL_API_KEY fill in what the caller leaves out.
import { RecallClient } from "./recall-client";
import { withEnvDefaults } from "./env-defaults";

const NAMES = ["RECALL_URL", "RECALL_CONTEXT_ID", "RECALL_API_KEY"] as const;
const saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));

afterEach(() => {
  for (const n of NAMES) {
    if (saved[n] === undefined) delete process.env[n];
    else process.env[n] = saved[n];
  }
});

test("each option left out is read from its variable; one given wins", () => {
  Object.assign(process.env, { RECALL_URL: "http://127.0.0.1:18080", RECALL_CONTEXT_ID: "ctx-env", RECALL_API_KEY: "rk_env" });
  expect(withEnvDefaults({})).toEqual({ baseUrl: "http://127.0.0.1:18080", contextId: "ctx-env", apiKey: "rk_env" });
  expect(withEnvDefaults({ baseUrl: "http://other:1", apiKey: "rk_given" })).toEqual({
    baseUrl: "http://other:1",
    contextId: "ctx-env",
    apiKey: "rk_given",
  });
  expect(new RecallClient().contextId).toBe("ctx-env");
});

test("without baseUrl or RECALL_URL the client says which variable to set; blank variables count as unset", () => {
  for (const n of NAMES) delete process.env[n];
  expect(() => new RecallClient()).toThrow(/baseUrl, or RECALL_URL/);
  process.env.RECALL_URL = "  ";
  expect(() => new RecallClient()).toThrow(/RECALL_URL/);
});

test("the requests go to RECALL_URL with RECALL_API_KEY, under RECALL_CONTEXT_ID", async () => {
  Object.assign(process.env, { RECALL_URL: "http://127.0.0.1:18080/", RECALL_CONTEXT_ID: "ctx-env", RECALL_API_KEY: "rk_env" });
  const seen: { url: string; key: string | null }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(input), key: new Headers(init?.headers).get("API-KEY") });
    return Response.json({ session_id: "s1" }, { status: 201 });
  };
  await new RecallClient({ fetch }).sessions.create();
  expect(seen).toEqual([{ url: "http://127.0.0.1:18080/api/v1/ctx-env/sessions", key: "rk_env" }]);
});
