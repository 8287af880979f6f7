// truth_maintenance: applied after a commit, from what it produced (its CommittedRefs), in one transaction.
// Facts are never overwritten. For a single-valued predicate (per skill; at least the
// defaults below) a newer value closes the older one (valid_to + superseded_by) when
// the rule in fact-origin.ts orders them, and otherwise both stay current under an
// uncertainty (conflicts.ts); multi-valued predicates accumulate. A new fact resolves
// the open uncertainties it clarifies, and revocations deactivate instructions.
//
// Re-running it for the same event changes nothing: only current facts are closed,
// conflicts are recorded once per pair, resolved uncertainties and inactive
// instructions are left alone. Runs touching the same entity and key serialise on an
// advisory lock, so two workers never close the same fact twice.
import type { CommittedRefs } from "@recall/contracts";
import { holdLocks, transaction, type Db, type Tx } from "@recall/db";
import {
  openUncertainties,
  openUncertaintiesOf,
  recordConflict,
  resolveClarified,
  type OpenUncertaintiesByFact,
  type OpenUncertainty,
  type UncertaintyReport,
} from "./conflicts";
import { ordered, loadStated, timingOf, type Stated } from "./fact-origin";
import { factGroup, factGroupLocks, groupKeyOf, loadFacts, lockFactGroups, sameValue, type Fact } from "./fact-store";
import { revokeInstruction } from "./revocation";
import { isSourceRetracted, sourceSharedLock } from "../core/source-lock";
import { DEFAULT_SINGLE_VALUED } from "../core/fact-keys";
import { sameScope } from "../core/scope";
import { scopeOf } from "../core/scope-sets";
import { closeFact, repointFact } from "./supersession";
import { succession } from "./time-rule";

const SAME_INSTANT = "stated at the same instant, so nothing says which is newer; the later-recorded value is current";

/** What a commit produced, as its record holds it. */
export type { CommittedRefs };

export interface TruthMaintenanceOptions {
  singleValued?: ReadonlySet<string>;
  /** The turn whose revocations this event carries (defaults to the event's own turn). */
  turnId?: string;
  /**
   * Runs inside the transaction, so a checkpoint written here commits exactly when the
   * effects do (packages/pipeline markTruthMaintained: a retry of the work item's later step skips this one).
   */
  onApplied?: (tx: Tx) => Promise<void>;
}

export interface TruthMaintenanceReport extends UncertaintyReport {
  superseded: string[];
  revokedInstructionIds: string[];
}

interface Run {
  tx: Tx;
  singleValued: ReadonlySet<string>;
  report: TruthMaintenanceReport;
  /**
   * Each group read once a run: the groups are locked for the whole run (lockFactGroups), and every change to a fact
   * goes through setClosure, which changes the loaded object too, so a group stays as Postgres has it. A commit of
   * many values of one key then costs one read of its group, not one for each value.
   */
  groups: Map<string, Fact[]>;
  /** Where each loaded fact was stated (its assertion and input, which truth maintenance never changes). */
  stated: Map<string, Stated>;
  /**
   * The open uncertainties the run's facts may clarify, read for all of them at once before any was placed. They are
   * what Postgres holds only until the run records or resolves one (`uncertaintiesChanged`); then each fact asks again.
   */
  open?: OpenUncertaintiesByFact;
  uncertaintiesChanged: boolean;
}

export async function applyTruthMaintenance(
  db: Db,
  refs: CommittedRefs,
  options: TruthMaintenanceOptions = {},
): Promise<TruthMaintenanceReport> {
  return transaction(db, (tx) => applyTruthMaintenanceIn(tx, refs, options));
}

/** The same in the caller's transaction (a worker's is the one that records the stage's success). */
export async function applyTruthMaintenanceIn(
  tx: Tx,
  refs: CommittedRefs,
  options: TruthMaintenanceOptions = {},
): Promise<TruthMaintenanceReport> {
  const [report] = await applyTruthMaintenanceMany(tx, [{ refs, options }]);
  return report!;
}

/** One commit's truth maintenance among several applied together. */
export interface TruthMaintenanceRun {
  refs: CommittedRefs;
  options?: TruthMaintenanceOptions;
}

/**
 * The truth maintenance of several commits (a group's turns) in the caller's transaction, each applied in turn as
 * `applyTruthMaintenanceIn` would apply it alone, but with every lock taken, and every fact and open uncertainty they
 * need read, at once: their sources' locks, then their fact groups' (sorted), as a retraction takes them.
 */
export async function applyTruthMaintenanceMany(tx: Tx, runs: readonly TruthMaintenanceRun[]): Promise<TruthMaintenanceReport[]> {
  // Which groups the facts are in (a fact's group never changes), then every lock in one statement, in the
  // retraction's own order: the sources, then the fact groups. Each fact is placed as its group stands under them.
  const facts = await loadFactsOf(
    tx,
    runs.flatMap((r) => r.refs.attributeIds ?? []),
    runs.flatMap((r) => r.refs.relationIds ?? []),
  );
  const sources = runs.flatMap((r) => (r.refs.subjectId ? [r.refs.subjectId] : []));
  const locks = [...sources.map(sourceSharedLock), ...factGroupLocks(facts)];
  if (locks.length > 0) await holdLocks(tx, locks);
  const shared: Run = { ...newRun(tx, new Set()), open: await openUncertaintiesOf(tx, facts) };
  const reports: TruthMaintenanceReport[] = [];
  for (const { refs, options = {} } of runs) {
    const mine = new Set([...(refs.attributeIds ?? []), ...(refs.relationIds ?? [])]);
    const run: Run = { ...shared, singleValued: options.singleValued ?? new Set<string>(DEFAULT_SINGLE_VALUED), report: emptyReport() };
    for (const fact of facts) if (mine.has(fact.id)) await maintainFact(run, fact);
    shared.uncertaintiesChanged = changedUncertainties(run);
    const { report } = run;
    const ids = await revocationsToApply(tx, refs);
    if (ids.length > 0) {
      const revoker = { scope: await revokerScope(tx, refs), turnId: options.turnId ?? refs.turnId };
      for (const id of ids) report.revokedInstructionIds.push(...(await revokeInstruction(tx, id, revoker)));
    }
    await options.onApplied?.(tx);
    reports.push(report);
  }
  return reports;
}

/** Attributes, then relations, with their scopes' entries. */
async function loadFactsOf(tx: Tx, attributeIds: readonly string[], relationIds: readonly string[]): Promise<Fact[]> {
  return [...(await loadFacts(tx, "attribute", attributeIds)), ...(await loadFacts(tx, "relation", relationIds))];
}

/** The scope the committed source was written in: its set's pairs (or, in an event from before scope sets, the pairs). */
async function revokerScope(tx: Tx, refs: CommittedRefs): Promise<string[]> {
  if (refs.scopeSetId) return scopeOf(tx, BigInt(refs.scopeSetId));
  return refs.scope ?? [];
}

/**
 * A source retracted after its commit takes back its revocations too: the retraction reactivated
 * what it had revoked, or will find nothing to reactivate if it ran first, so they are not applied
 * here. The caller holds the source against a retraction running meanwhile (source-lock.ts).
 */
async function revocationsToApply(tx: Tx, refs: CommittedRefs): Promise<string[]> {
  const ids = refs.revocationCandidateIds ?? [];
  if (ids.length === 0 || !refs.subjectId) return ids;
  return (await isSourceRetracted(tx, refs.subjectId)) ? [] : ids;
}

/** Places each fact among the other values of its entity and key, inside the caller's transaction. */
export async function maintainFacts(tx: Tx, facts: readonly Fact[], singleValued: ReadonlySet<string>): Promise<TruthMaintenanceReport> {
  const run = newRun(tx, singleValued);
  await lockFactGroups(tx, facts);
  for (const fact of facts) await maintainFact(run, fact);
  return run.report;
}

function newRun(tx: Tx, singleValued: ReadonlySet<string>): Run {
  return { tx, singleValued, report: emptyReport(), groups: new Map(), stated: new Map(), uncertaintiesChanged: false };
}

/** The open uncertainties the fact may clarify: as read for the run, while nothing has changed them since. */
async function openFor(run: Run, fact: Fact): Promise<OpenUncertainty[]> {
  if (run.open && !changedUncertainties(run)) return run.open(fact);
  return openUncertainties(run.tx, fact);
}

/** Whether the run (or one before it in the same application) recorded or resolved an uncertainty: all are in its report. */
function changedUncertainties(run: Run): boolean {
  if (run.report.resolvedUncertaintyIds.length + run.report.conflictUncertaintyIds.length > 0) run.uncertaintiesChanged = true;
  return run.uncertaintiesChanged;
}

/** The fact's group as it stands under the lock (read on its first use in the run), and where each member was stated. */
async function groupOf(run: Run, fact: Fact): Promise<Fact[]> {
  const key = groupKeyOf(fact);
  let members = run.groups.get(key);
  if (!members) {
    members = await factGroup(run.tx, fact);
    const stated = await loadStated(run.tx, members);
    for (const [id, s] of stated) run.stated.set(id, s);
    run.groups.set(key, members);
  }
  return members;
}

function emptyReport(): TruthMaintenanceReport {
  return { superseded: [], revokedInstructionIds: [], resolvedUncertaintyIds: [], conflictUncertaintyIds: [] };
}

/** Places one fact among the other values of its entity and key in the same scope. */
async function maintainFact(run: Run, committed: Fact): Promise<void> {
  const open = await openFor(run, committed);
  // A key of many values is placed by nothing but the uncertainties it may clarify: with none open, its group is
  // not read at all (a large group of a multi-valued key costs nothing to add one value to).
  const singleValued = run.singleValued.has(committed.key);
  if (open.length === 0 && !singleValued) return;
  const members = await groupOf(run, committed);
  // As it stands under the lock: another run may have closed or retracted it before this one took the lock.
  const fact = members.find((f) => f.id === committed.id);
  if (!fact) return;
  const group = members.filter((f) => f !== fact && sameScope(f.scope, fact.scope));
  const stated = run.stated;
  const clarified = open.length > 0 ? await resolveClarified(run.tx, fact, open, group, stated, run.report) : new Set<string>();
  if (!singleValued) return;
  const differing = group.filter((f) => !sameValue(f, fact)).sort((a, b) => a.validFrom.getTime() - b.validFrom.getTime());
  const decides = (other: Fact) => clarified.has(other.id) || ordered(other, stated.get(other.id)!, fact, stated.get(fact.id)!);
  await supersedeCurrent(run, fact, differing, decides, stated);
  await insertIntoChain(run, fact, group, differing, decides);
  await endRestated(run, fact, group, decides, stated);
}

/**
 * A later statement of the same value that dates its end ("I left Acme in March", "until
 * June", "no longer") closes the earlier open statement of it at that end.
 */
async function endRestated(
  run: Run,
  fact: Fact,
  group: readonly Fact[],
  decides: (other: Fact) => boolean,
  stated: ReadonlyMap<string, Stated>,
): Promise<void> {
  if (fact.validTo === null) return;
  const open = group.filter((f) => sameValue(f, fact) && f.validTo === null && f.supersededById === null && decides(f));
  for (const other of open) {
    const s = succession(other, timingOf(other, stated.get(other.id)!), fact, timingOf(fact, stated.get(fact.id)!));
    if (s.newer !== fact) continue;
    await closeFact(run.tx, other, fact, fact.validTo);
    run.report.superseded.push(other.id);
  }
}

/** Current values (not yet superseded): the older of each ordered pair is closed; unordered pairs are conflicts. */
async function supersedeCurrent(
  run: Run,
  fact: Fact,
  differing: readonly Fact[],
  decides: (other: Fact) => boolean,
  stated: ReadonlyMap<string, Stated>,
): Promise<void> {
  for (const other of differing.filter((f) => f.supersededById === null)) {
    if (!decides(other)) {
      await recordConflict(run.tx, other, fact, stated, run.report);
      continue;
    }
    const s = succession(other, timingOf(other, stated.get(other.id)!), fact, timingOf(fact, stated.get(fact.id)!));
    if (s.older === fact && fact.supersededById !== null) continue;
    await closeFact(run.tx, s.older, s.newer, s.closeAt);
    run.report.superseded.push(s.older.id);
    if (s.uncertain) await recordConflict(run.tx, other, fact, stated, run.report, SAME_INSTANT);
  }
}

/** A superseded value whose validity the new fact falls inside now ends at the new fact, which ends where it used to. */
async function insertIntoChain(
  run: Run,
  fact: Fact,
  group: readonly Fact[],
  differing: readonly Fact[],
  decides: (other: Fact) => boolean,
): Promise<void> {
  const covering = differing.filter(
    (f) =>
      f.supersededById !== null &&
      f.supersededById !== fact.id &&
      f.validFrom < fact.validFrom &&
      (f.validTo === null || fact.validFrom < f.validTo) &&
      decides(f),
  );
  for (const older of covering) {
    const successor = group.find((f) => f.id === older.supersededById);
    await repointFact(run.tx, older, fact);
    run.report.superseded.push(older.id);
    if (successor && fact.supersededById === null) await closeFact(run.tx, fact, successor);
  }
}
