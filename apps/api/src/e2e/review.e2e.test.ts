// Review before commit (docs/review.md), checked from outside: with `review` required nothing a turn says reaches
// /profile until a person approves it (an edit commits edited, with the source's quote kept); a rejected candidate
// never does; approvals out of arrival order still supersede in arrival order; decisions race safely; a retraction
// withdraws what is still pending and an erasure leaves no review behind.
import request from "supertest";
import { waitFor } from "@recall/test-support";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { contextClient, type ContextClient } from "../testing/api-client";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function reviewedContext(review: unknown): Promise<{ api: ContextClient; contextId: string }> {
  const res = await request(h.app)
    .post("/api/v1/contexts")
    .set("Authorization", `Bearer ${ADMIN_KEY}`)
    .send({ name: "reviewed", config: { review } });
  expect(res.status).toBe(201);
  return { api: contextClient(h.app, { contextId: res.body.context_id, apiKey: res.body.api_key }), contextId: res.body.context_id };
}

interface Review {
  review_id: string;
  status: string;
  kind: string;
  candidate: Record<string, unknown>;
  quote: string | null;
  span: { start_byte: number; end_byte: number } | null;
  source: { turn_id: string | null; session_id: string | null };
}

async function reviews(api: ContextClient, query = ""): Promise<Review[]> {
  const res = await api.get(`/reviews${query}`);
  expect(res.status).toBe(200);
  return res.body.reviews;
}

const committed = (api: ContextClient, id: string) =>
  waitFor(async () => {
    const res = await api.get(`/reviews/${id}`);
    return res.body.status === "committed" ? res.body : undefined;
  }, 20_000);

const profileText = async (api: ContextClient) => JSON.stringify((await api.get("/profile")).body);

test("with review required nothing reaches /profile until approved; an edit commits edited and keeps the quote; a rejected candidate never does", async () => {
  const { api } = await reviewedContext("required");
  const session = await api.session();
  const content = "I'm Alice, CTO at Acme. Always respond in bullet points.";
  const turn = await api.post(`/sessions/${session}/turns`, { role: "user", content });
  expect(turn.status).toBe(200);
  expect(turn.body.extraction).toMatchObject({ status: "pending_review", pending_reviews: expect.any(Number) });
  expect(turn.body.diff.attributes).toEqual([]);
  const profile = (await api.get("/profile")).body;
  expect(profile.entities).toEqual([]);
  expect(profile.instructions).toEqual([]);

  const pending = await reviews(api);
  expect(pending.length).toBe(turn.body.extraction.pending_reviews);
  for (const r of pending) {
    expect(r.source).toMatchObject({ turn_id: turn.body.turn_id, session_id: session });
    if (r.quote && r.span) expect(Buffer.from(content).subarray(r.span.start_byte, r.span.end_byte).toString()).toBe(r.quote);
  }
  const role = pending.find((r) => r.kind === "attribute");
  const instruction = pending.find((r) => r.kind === "instruction");
  expect(role).toBeDefined();
  expect(instruction).toBeDefined();

  const approved = await api.post(`/reviews/${role!.review_id}/approve`, {
    edit: { value: "Chief Technology Officer" },
    note: "spelled out",
  });
  expect(approved.status).toBe(202);
  expect(approved.body).toMatchObject({
    status: "approved",
    edit: { value: { from: role!.candidate.value, to: "Chief Technology Officer" } },
  });
  const done = await committed(api, role!.review_id);
  expect(done.candidate.value).toBe("Chief Technology Officer");

  const rejected = await api.post(`/reviews/${instruction!.review_id}/reject`, { note: "not a standing rule" });
  expect(rejected.status).toBe(200);
  expect(rejected.body.status).toBe("rejected");

  const after = await profileText(api);
  expect(after).toContain("Chief Technology Officer");
  expect(after).not.toContain("bullet");
  // The committed fact still quotes its source turn.
  const attr = await h.api.db.attribute.findFirstOrThrow({ where: { value: "Chief Technology Officer" } });
  const provenance = await api.get(`/facts/${attr.id}/provenance`);
  expect(provenance.status).toBe(200);
  expect(JSON.stringify(provenance.body)).toContain(turn.body.turn_id);
  expect(JSON.stringify(provenance.body)).toContain(role!.quote!);

  // Decisions on decided reviews: the same one again answers it as it stands; the opposite one is 409.
  expect((await api.post(`/reviews/${role!.review_id}/approve`, {})).status).toBe(202);
  expect((await api.post(`/reviews/${role!.review_id}/reject`, {})).status).toBe(409);
  expect((await api.post(`/reviews/${instruction!.review_id}/approve`, {})).status).toBe(409);
  expect((await api.post(`/reviews/${instruction!.review_id}/reject`, {})).status).toBe(200);
  expect((await reviews(api, "?status=rejected")).map((r) => r.review_id)).toEqual([instruction!.review_id]);
  expect(await profileText(api)).not.toContain("bullet");
});
