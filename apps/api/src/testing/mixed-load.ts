// A mixed load for fault tests (and the soak): interactive turns, asynchronous turns, history
// batches and documents through the HTTP API, every answer recorded, every accepted input
// remembered, so a test can check afterwards that each was committed exactly once.
//
// Inputs are built so the expected memory is known whatever order the workers take them in:
// heuristic turns ("I'm Alice Bek, CTO at Zorvik. …") need no model; the others (asynchronous
// turns that go to a window, documents) all contain LEDGER, and the scripted model answer
// (`ledgerAnswer`) states exactly one relation quoted from it, valid for any of them.
// Run with RECALL_WINDOW_MAX_TURNS=1 so each asynchronous turn gets its own window (and fact).
import type { Config } from "@recall/config";
import type { Db } from "@recall/db";
import { auditExactlyOnce, exactlyOnceMismatches, waitFor, type FakeLlmResponse, type FakeLlmServer } from "@recall/test-support";
import type { ContextClient } from "./api-client";

export const LEDGER = "Kestrel service stores its ledger in Postgres";

/** The one relation every model-read input yields; `turn: 0` routes it in a window, and a document's schema drops it. */
export function ledgerAnswer(): FakeLlmResponse {
  const relation = {
    turn: 0,
    subject: "Kestrel service",
    verb: "stores_in",
    object: "Postgres",
    memory_category: "knowledge",
    evidence: LEDGER,
    confidence: 0.9,
    significance: "medium",
    valid_from: null,
    valid_to: null,
  };
  return { json: { entities: [], attributes: [], relations: [relation], instructions: [], revocations: [], uncertainties: [] } };
}

export type InputKind = "turn" | "async_turn" | "batch_turn" | "document";

export interface AcceptedInput {
  kind: InputKind;
  id: string;
  sessionId?: string;
  /** Assertions its commit must leave: known from how the input was built. */
  expectedAssertions: number;
}

export interface Answer {
  route: string;
  status: number;
  body: unknown;
}

const FIRST = ["Alice", "Bruno", "Carla", "Dario", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas"];
const ROLES = ["CTO", "CFO", "COO", "CEO"];

/** Letters for n (base 26), so names never repeat; prefixed below so they are never an English word ("Be"). */
function letters(n: number): string {
  let s = "";
  for (let i = n + 26; i > 0; i = Math.floor(i / 26)) s = String.fromCharCode(97 + (i % 26)) + s;
  return s;
}

/** entities and the instruction are not assertions: the role attribute and works_at relation are. */
const HEURISTIC_ASSERTIONS = 2;

export class MixedLoad {
  readonly accepted: AcceptedInput[] = [];
  readonly answers: Answer[] = [];
  private n = 0;

  constructor(
    private readonly api: ContextClient,
    private readonly sessions: string[],
  ) {}

  static async start(api: ContextClient, sessionCount = 3): Promise<MixedLoad> {
    const sessions: string[] = [];
    for (let i = 0; i < sessionCount; i++) sessions.push(await api.session());
    return new MixedLoad(api, sessions);
  }

  private heuristicTurn(n: number): string {
    // Unique first names too: one shared with a known entity ("Alice") is an ambiguous reference, which goes to the model.
    return `I'm Ka${letters(n)} Zo${letters(n)}, ${ROLES[n % ROLES.length]} at Qu${letters(n)}tek. Always respond in bullet points.`;
  }

  private modelTurn(n: number): string {
    return `${FIRST[n % FIRST.length]} said the ${LEDGER} after audit ${n}.`;
  }

  private session(n: number): string {
    return this.sessions[n % this.sessions.length]!;
  }

  private record(route: string, res: { status: number; body: unknown }): boolean {
    this.answers.push({ route, status: res.status, body: res.body });
    return res.status >= 200 && res.status < 300;
  }

  /** An interactive turn (answered once committed, or 202 pending after TURN_TIMEOUT_MS). */
  async interactiveTurn(): Promise<void> {
    const n = this.n++;
    const sessionId = this.session(n);
    const res = await this.api.post(`/sessions/${sessionId}/turns`, { role: "user", content: this.heuristicTurn(n), scope: ["org=acme"] });
    if (this.record("POST turns", res)) {
      this.accepted.push({ kind: "turn", id: res.body.turn_id, sessionId, expectedAssertions: HEURISTIC_ASSERTIONS });
    }
  }

  /** A turn posted with wait: false that needs the model (a window of its own). */
  async asyncTurn(): Promise<void> {
    const n = this.n++;
    const sessionId = this.session(n);
    const res = await this.api.post(`/sessions/${sessionId}/turns`, {
      role: "user",
      content: this.modelTurn(n),
      scope: ["org=acme"],
      wait: false,
    });
    if (this.record("POST turns wait:false", res))
      this.accepted.push({ kind: "async_turn", id: res.body.turn_id, sessionId, expectedAssertions: 1 });
  }

  /** A history batch: two heuristic turns and one for the model. */
  async batch(): Promise<void> {
    const n = this.n;
    this.n += 3;
    const sessionId = this.session(n);
    const contents = [this.heuristicTurn(n), this.modelTurn(n + 1), this.heuristicTurn(n + 2)];
    const res = await this.api.post(`/sessions/${sessionId}/turns/batch`, {
      turns: contents.map((content) => ({ role: "user", content, scope: ["org=acme"] })),
    });
    if (!this.record("POST turns/batch", res)) return;
    (res.body.turn_ids as string[]).forEach((id, i) =>
      this.accepted.push({ kind: "batch_turn", id, sessionId, expectedAssertions: i === 1 ? 1 : HEURISTIC_ASSERTIONS }),
    );
  }

  async document(): Promise<void> {
    const n = this.n++;
    const text = `Operations note ${n}.\n\nThe ${LEDGER} and replicates it nightly to site Zo${letters(n)}.`;
    const res = await this.api.post("/documents", { text, metadata: { domain: "architecture" } });
    if (this.record("POST documents", res) && !res.body.duplicate) {
      this.accepted.push({ kind: "document", id: res.body.document_id, expectedAssertions: 1 });
    }
  }

  /** One of each kind, side by side. */
  async round(): Promise<void> {
    await Promise.all([this.interactiveTurn(), this.asyncTurn(), this.batch(), this.document()]);
  }

  /**
   * Rounds one after another until `stop()` says so (checked between rounds). A round in which
   * nothing was accepted (the service answered 503) is followed by a pause, as a client honouring
   * Retry-After would make, only shorter.
   */
  async runUntil(stop: () => boolean): Promise<void> {
    while (!stop()) {
      const before = this.accepted.length;
      await this.round();
      if (this.accepted.length === before) await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  serverErrors(): Answer[] {
    return this.answers.filter((a) => a.status >= 500);
  }

  /** The user-visible state of an accepted input: `committed`, `failed`, `pending`, …. */
  async stateOf(input: AcceptedInput): Promise<string> {
    if (input.kind === "document") return (await this.api.get(`/documents/${input.id}/status`)).body.state;
    return (await this.api.get(`/sessions/${input.sessionId}/turns/${input.id}/status`)).body.extraction?.status;
  }

  /** Inputs not committed yet, with their state. */
  async uncommitted(): Promise<{ input: AcceptedInput; state: string }[]> {
    const states = await Promise.all(this.accepted.map(async (input) => ({ input, state: await this.stateOf(input) })));
    return states.filter((s) => s.state !== "committed");
  }
}

/**
 * Settings for a harness under the mixed load: the fake model (slow enough that model-read inputs
 * queue behind each other, so a fault finds jobs waiting), one turn per window, a sweeper that
 * looks every half second, and interactive turns that answer 202 pending after 4 s.
 */
export function mixedLoadSettings(llm: FakeLlmServer): Partial<Record<keyof Config, string>> {
  llm.script(...Array.from({ length: 1_000 }, () => ({ ...ledgerAnswer(), delayMs: 150 })));
  return {
    RECALL_FAST_MODEL: "openai-compatible:test-fast",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    RECALL_WINDOW_MAX_TURNS: "1",
    RECALL_WINDOW_LINGER_MS: "200",
    RECALL_SWEEP_INTERVAL_MS: "500",
    RECALL_SWEEP_AFTER_MS: "1000",
    TURN_TIMEOUT_MS: "4000",
  };
}

/** Waits until every accepted input is committed, then checks in SQL that each was committed exactly once. */
export async function expectCommittedExactlyOnce(load: MixedLoad, db: Db, contextId: string, timeoutMs = 90_000): Promise<void> {
  await waitFor(async () => (await load.uncommitted()).length === 0, { what: "every accepted input committed", timeoutMs }).catch(
    async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify((await load.uncommitted()).slice(0, 10))}`);
    },
  );
  const audit = await auditExactlyOnce(db, contextId);
  expect(exactlyOnceMismatches(audit, load.accepted)).toEqual([]);
  expect(audit.duplicateAssertions).toEqual([]);
  expect(audit.duplicateOutbox).toEqual([]);
  expect(audit.itemsSucceededTwice).toEqual([]);
  expect(audit.unfinishedItems).toEqual([]);
  expect(await db.workItem.count({ where: { contextId, status: "dead" } })).toBe(0);
}
