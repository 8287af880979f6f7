// Where a fact came from, and the rule deciding whether a newer value of a
// single-valued predicate replaces an older one or contradicts it.
//
// THE RULE. Two values of one single-valued fact (same entity, same key, same scope:
// scope.ts never lets one reader's correction close what another still sees) are
// ORDERED, and the older one superseded, when something says which is newer:
//   1. the same origin stated both, so the later statement is a correction or an
//      update of its own earlier one: the same conversation session, the same speaker
//      (turn role within the same scope, e.g. user alice in any session), the same
//      document, another version of a document from the same source, or two direct
//      writes (the application is one author);
//   2. the newer one is a direct write (POST /facts): the application stating the
//      truth on purpose outranks what was extracted before it;
//   3. event times tell them apart: both state when they became true and those times
//      differ, or one states a time later than the other's source was written
//      ("since March she is CEO" against a January document saying CTO).
// Which of two ordered values is newer, and when the older ended, is the time rule
// (time-rule.ts): dated beginnings, then the later statement. Otherwise, two different sources disagree with no clear winner
// (two documents, or a document and a turn, neither dated): neither is closed, both
// stay current, and an Uncertainty names them (see conflicts.ts) until a clarifying
// fact settles it.
import type { Assertion, Document, Turn, Tx } from "@recall/db";
import type { Fact } from "./fact-store";
import type { Timing } from "./time-rule";

export type Origin =
  | { kind: "turn"; turnId: string; sessionId: string; speaker: string }
  | { kind: "document"; documentId: string; sourceId: string | null }
  | { kind: "fact_write"; factWriteId: string }
  | { kind: "unknown" };

export interface Stated {
  origin: Origin;
  /** The time the source itself gave for the change, if any (the assertion's event time). */
  eventTime: Date | null;
  /** When the source said or wrote it (time-rule.ts); undefined where the source is unknown. */
  observedAt?: Date;
  /** A turn's place in its session. */
  sequence?: { sessionId: string; seq: number };
}

export function sameOrigin(a: Origin, b: Origin): boolean {
  if (a.kind === "turn" && b.kind === "turn") return a.sessionId === b.sessionId || a.speaker === b.speaker;
  if (a.kind === "document" && b.kind === "document")
    return a.documentId === b.documentId || (a.sourceId !== null && a.sourceId === b.sourceId);
  return a.kind === "fact_write" && b.kind === "fact_write";
}

function eventTimesDecide(a: Fact, sa: Stated, b: Fact, sb: Stated): boolean {
  if (sa.eventTime && sb.eventTime) return sa.eventTime.getTime() !== sb.eventTime.getTime();
  if (sa.eventTime) return sa.eventTime > b.validFrom;
  if (sb.eventTime) return sb.eventTime > a.validFrom;
  return false;
}

/** Whether the rule above orders `existing` and `incoming` (the fact truth maintenance is applying now). */
export function ordered(existing: Fact, se: Stated, incoming: Fact, si: Stated): boolean {
  return sameOrigin(se.origin, si.origin) || si.origin.kind === "fact_write" || eventTimesDecide(existing, se, incoming, si);
}

/** A fact's times for the time rule. Without a known source time, an undated value was observed when it took effect. */
export function timingOf(fact: Fact, stated: Stated): Timing {
  const startStated = stated.eventTime !== null;
  const observedAt = stated.observedAt ?? (startStated ? fact.recordedAt : fact.validFrom);
  return { validFrom: fact.validFrom, recordedAt: fact.recordedAt, startStated, observedAt, sequence: stated.sequence };
}

/** Where each fact was stated, from its assertion and the turn, document or direct write behind it. */
export async function loadStated(tx: Tx, facts: readonly Fact[]): Promise<Map<string, Stated>> {
  const assertions = await tx.assertion.findMany({ where: { id: { in: facts.map((f) => f.assertionId) } } });
  const turns = await tx.turn.findMany({ where: { id: { in: assertions.flatMap((a) => (a.turnId ? [a.turnId] : [])) } } });
  const documents = await tx.document.findMany({ where: { id: { in: assertions.flatMap((a) => (a.documentId ? [a.documentId] : [])) } } });
  // Looked up by id, so a large group costs linear time here too.
  const turnById = new Map(turns.map((t) => [t.id, t]));
  const documentById = new Map(documents.map((d) => [d.id, d]));
  const byAssertion = new Map<string, Stated>();
  for (const a of assertions) {
    const turn = a.turnId ? turnById.get(a.turnId) : undefined;
    const origin = originOf(a, turn, a.documentId ? documentById.get(a.documentId) : undefined);
    byAssertion.set(a.id, {
      origin,
      eventTime: a.eventTime,
      observedAt: turn ? (turn.occurredAt ?? turn.createdAt) : undefined,
      sequence: turn ? { sessionId: turn.sessionId, seq: turn.seq } : undefined,
    });
  }
  return new Map(facts.map((f) => [f.id, byAssertion.get(f.assertionId) ?? { origin: { kind: "unknown" }, eventTime: null }]));
}

function originOf(assertion: Assertion, turn: Turn | undefined, document: Document | undefined): Origin {
  if (turn) {
    // The speaker is a role within a scope: "user" in {org=acme, user=alice} is alice, in any session. One scope is
    // one set of the context (core/scope-sets.ts), so its id names it.
    const speaker = `${turn.role}|${turn.scopeSetId ?? ""}`;
    return { kind: "turn", turnId: turn.id, sessionId: turn.sessionId, speaker };
  }
  if (document) return { kind: "document", documentId: document.id, sourceId: document.sourceId };
  if (assertion.factWriteId) return { kind: "fact_write", factWriteId: assertion.factWriteId };
  return { kind: "unknown" };
}

/** The source id an uncertainty or assertion row would carry for this origin. */
export function originSourceId(origin: Origin): string | undefined {
  if (origin.kind === "turn") return origin.turnId;
  if (origin.kind === "document") return origin.documentId;
  if (origin.kind === "fact_write") return origin.factWriteId;
  return undefined;
}

export function describeOrigin(origin: Origin): string {
  if (origin.kind === "turn") return `turn ${origin.turnId}`;
  if (origin.kind === "document") return `document ${origin.documentId}`;
  if (origin.kind === "fact_write") return `direct write ${origin.factWriteId}`;
  return "an unknown source";
}
