// One hostile upload must not stall anyone else. A 5 MB Markdown file with no paragraph break and
// no full stop is parsed on the CPU pool's background thread: past its time limit the thread is
// ended and the document's work item is dead with class budget, naming the limit; meanwhile
// /healthz answers and another context's interactive turns are extracted and committed.
import request from "supertest";
import { waitFor } from "@recall/test-support";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";

let h: Harness;
let hostile: ContextClient;
let other: ContextClient;
// Long enough for a bystander's turn on a loaded 2-core machine (at 1,500 ms one failed, reason not recorded, in a full suite
// beside other work); the 5 MB file still runs far past it.
const TASK_LIMIT_MS = 5_000;

beforeAll(async () => {
  h = await startHarness({ RECALL_CPU_TASK_TIMEOUT_MS: String(TASK_LIMIT_MS) });
  hostile = contextClient(h.app, await createContext(h.app, "hostile"));
  other = contextClient(h.app, await createContext(h.app, "bystander"));
});
afterAll(() => h?.close());

/** About `bytes` of words with no full stop and no line break (compromise's worst case). */
function wordSalad(bytes: number): string {
  const words = ["alpha", "river", "stone", "cloud", "garden", "blue", "north", "paper"];
  const parts: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++, size += 6) parts.push(words[i % words.length]!);
  return parts.join(" ");
}

interface DocumentStage {
  queue: string;
  status: string;
  error?: { class: string; message: string };
}

it("ends the hostile document as budget while health checks and another context's turns go on", async () => {
  const upload = await hostile
    .post("/documents")
    .set("Content-Type", "text/markdown")
    .send(wordSalad(5 * 1024 * 1024));
  expect(upload.status).toBe(202);
  const documentId: string = upload.body.document_id;

  const health: number[] = [];
  const answers: string[] = [];
  const session = await other.session();
  const dead = waitFor(
    async () => {
      const status = await hostile.get(`/documents/${documentId}/status`);
      const stages: DocumentStage[] = status.body.stages ?? [];
      return stages.find((s) => s.queue === "extract_assertions" && s.status === "dead");
    },
    { timeoutMs: 120_000, what: "the hostile document's extraction to end dead" },
  );
  let settled = false;
  dead.then(
    () => (settled = true),
    () => (settled = true),
  );
  const companies = ["Initech", "Globex", "Umbrella", "Hooli", "Vandelay"];
  for (let i = 0; !settled || answers.length < 3; i++) {
    const started = performance.now();
    expect((await request(h.app).get("/healthz")).status).toBe(200);
    health.push(performance.now() - started);
    const turn = await other.turn(session, `I'm Dana, CTO at ${companies[i % companies.length]}.`, ["user=dana"]);
    // A turn that did not commit is shown whole, so a failure names its reason.
    answers.push(turn.extraction.status === "committed" ? "committed" : JSON.stringify(turn.extraction));
  }
  const stage = await dead;
  expect(stage.error?.class).toBe("budget");
  expect(stage.error?.message).toContain(`time limit of ${TASK_LIMIT_MS} ms`);
  // Parsing the file on this event loop blocks it for seconds; on a thread, health checks never wait behind it.
  expect(Math.max(...health)).toBeLessThan(2_000);
  expect(answers).toEqual(answers.map(() => "committed"));
}, 180_000);
