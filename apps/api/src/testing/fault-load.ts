// Mixed load over real HTTP for fault tests and the soak: interactive turns (wait: true), asynchronous
// turns (wait: false), history batches and documents, each carrying marker facts (marker-model.ts) so
// the exactly-once audit knows what every accepted input must have produced. It behaves as the
// Guarantees section asks a client to: one Idempotency-Key per write, the same key on every retry,
// retrying network errors, 5xx and 429 after Retry-After.
import { randomUUID } from "node:crypto";
import type { AcceptedInput } from "@recall/test-support";
import { markerText, markersFor, type Marker } from "@recall/worker/testing";

export interface LoadOptions {
  baseUrl: string;
  adminKey: string;
  /** Parallel clients, each with its own sessions (default 4). */
  lanes?: number;
  /** Turns per history batch (default 20). */
  batchSize?: number;
  /** Paragraphs (document nodes) per document (default 3). */
  documentParagraphs?: number;
  /** How long a write is retried before it counts as refused (default 60 s). */
  retryForMs?: number;
  /** `interactive`: interactive turns only, no background work (an idle baseline). Default `mixed`. */
  mix?: "mixed" | "interactive";
}

export type InputKind = "interactive" | "async" | "batch" | "document";

export interface TurnLatency {
  at: number;
  ms: number;
  status: number;
}

export interface LoadStats {
  accepted: Record<InputKind, number>;
  /** Writes that still failed when their retry time ran out (nothing was promised for them). */
  refused: number;
  /** Answers that were retried (network error, 5xx, 429), by status (0: network). */
  retries: Record<string, number>;
  interactive: TurnLatency[];
}

/** One step of each lane's cycle; a batch every few cycles. */
const CYCLE: InputKind[] = ["interactive", "async", "async", "document", "interactive", "async", "async"];
const BATCH_EVERY = 3;
const SCOPE = ["org=faults"];

interface Posted {
  status: number;
  body: Record<string, unknown>;
}

export class FaultLoad {
  readonly accepted: AcceptedInput[] = [];
  readonly stats: LoadStats = {
    accepted: { interactive: 0, async: 0, batch: 0, document: 0 },
    refused: 0,
    retries: {},
    interactive: [],
  };
  #next = 0;
  #context: { id: string; key: string } | undefined;

  constructor(private readonly options: LoadOptions) {}

  /** The context the load writes to, and its API key (for readers alongside). */
  get credentials(): { contextId: string; apiKey: string } {
    return { contextId: this.context.id, apiKey: this.context.key };
  }

  private get context() {
    if (!this.#context) throw new Error("call setup() first");
    return this.#context;
  }

  async setup(name = "faults"): Promise<void> {
    const res = await this.post("/api/v1/contexts", { name }, { Authorization: `Bearer ${this.options.adminKey}` });
    if (res.status !== 201) throw new Error(`creating a context: ${res.status} ${JSON.stringify(res.body)}`);
    this.#context = { id: String(res.body["context_id"]), key: String(res.body["api_key"]) };
  }

  /** Feeds inputs from every lane until `stop()` is true (checked between inputs). */
  async run(stop: () => boolean): Promise<void> {
    const lanes = this.options.lanes ?? 4;
    await Promise.all(Array.from({ length: lanes }, (_, lane) => this.lane(lane, stop)));
  }

  private async lane(lane: number, stop: () => boolean): Promise<void> {
    const interactive = await this.session();
    const async = await this.session();
    const steps = this.options.mix === "interactive" ? (["interactive"] as InputKind[]) : CYCLE;
    for (let cycle = 0; !stop(); cycle++) {
      for (const kind of steps) {
        if (stop()) return;
        if (kind === "interactive") await this.interactiveTurn(interactive, lane);
        else if (kind === "async") await this.asyncTurn(async);
        else await this.document();
      }
      if (this.options.mix === "interactive") continue;
      if (cycle % BATCH_EVERY === lane % BATCH_EVERY && !stop()) await this.batch(await this.session());
    }
  }

  private async session(): Promise<string> {
    const res = await this.contextPost("/sessions", {});
    if (res.status !== 201) throw new Error(`creating a session: ${res.status} ${JSON.stringify(res.body)}`);
    return String(res.body["session_id"]);
  }

  private nextMarkers(): Marker[] {
    return markersFor(this.#next++);
  }

  private async interactiveTurn(sessionId: string, lane: number): Promise<void> {
    const markers = this.nextMarkers();
    // Every fourth interactive turn also gives a standing instruction (only user turns may).
    const ticket = this.#next % 4 === lane % 4 ? `T-${String(this.#next).padStart(4, "0")}` : undefined;
    const started = Date.now();
    const res = await this.contextPost(`/sessions/${sessionId}/turns`, {
      role: "user",
      content: markerText(markers, ticket),
      scope: SCOPE,
    });
    if (res.status === 200 || res.status === 202)
      this.stats.interactive.push({ at: started, ms: Date.now() - started, status: res.status });
    this.record("interactive", "turn", res, "turn_id", markers, ticket ? [`Mention ${ticket}`] : []);
  }

  private async asyncTurn(sessionId: string): Promise<void> {
    const markers = this.nextMarkers();
    const res = await this.contextPost(`/sessions/${sessionId}/turns`, {
      role: "user",
      content: markerText(markers),
      scope: SCOPE,
      wait: false,
    });
    this.record("async", "turn", res, "turn_id", markers);
  }

  private async batch(sessionId: string): Promise<void> {
    const markers = Array.from({ length: this.options.batchSize ?? 20 }, () => this.nextMarkers());
    const turns = markers.map((m, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: markerText(m), scope: SCOPE }));
    const res = await this.contextPost(`/sessions/${sessionId}/turns/batch`, { turns });
    if (res.status !== 202) return void (this.stats.refused += 1);
    const ids = res.body["turn_ids"] as string[];
    ids.forEach((id, i) => this.accept("batch", { type: "turn", id, facts: facts(markers[i]!) }));
  }

  private async document(): Promise<void> {
    const paragraphs = Array.from({ length: this.options.documentParagraphs ?? 3 }, () => this.nextMarkers());
    const text = paragraphs.map((m) => markerText(m)).join("\n\n");
    const res = await this.contextPost("/documents", { text });
    this.record("document", "document", res, "document_id", paragraphs.flat());
  }

  private record(
    kind: InputKind,
    type: AcceptedInput["type"],
    res: Posted,
    idField: string,
    markers: Marker[],
    instructions: string[] = [],
  ) {
    const id = res.body[idField];
    if (res.status >= 300 || typeof id !== "string") return void (this.stats.refused += 1);
    this.accept(kind, { type, id, facts: facts(markers), instructions });
  }

  private accept(kind: InputKind, input: AcceptedInput): void {
    this.accepted.push(input);
    this.stats.accepted[kind] += 1;
  }

  private contextPost(path: string, body: object): Promise<Posted> {
    return this.post(`/api/v1/${this.context.id}${path}`, body, { "API-KEY": this.context.key });
  }

  /** One write, retried with the same Idempotency-Key until it answers something other than 5xx/429, or time runs out. */
  private async post(path: string, body: object, headers: Record<string, string>): Promise<Posted> {
    const key = randomUUID();
    const deadline = Date.now() + (this.options.retryForMs ?? 60_000);
    for (;;) {
      const res = await fetch(`${this.options.baseUrl}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": key, ...headers },
        body: JSON.stringify(body),
      }).catch(() => undefined);
      const status = res?.status ?? 0;
      const answer = res && ((await res.json().catch(() => ({}))) as Record<string, unknown>);
      if (answer && !retryable(status, answer)) return { status, body: answer };
      this.stats.retries[String(status)] = (this.stats.retries[String(status)] ?? 0) + 1;
      if (Date.now() > deadline) return { status, body: {} };
      const retryAfter = Number(res?.headers.get("retry-after") ?? "0.5");
      await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, Math.max(100, retryAfter * 1_000))));
    }
  }
}

/** Worth the same request again: the server was unreachable or failed, asked to slow down, or is still answering it. */
function retryable(status: number, body: Record<string, unknown>): boolean {
  return (
    status === 0 || status >= 500 || status === 429 || (status === 409 && String(body["type"]).endsWith("idempotency_key_in_progress"))
  );
}

function facts(markers: Marker[]): AcceptedInput["facts"] {
  return markers.map((m) => ({ subject: m.subject, predicate: m.verb, object: m.object }));
}

/** The p-th percentile (0–100) of the values, 0 when there are none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
