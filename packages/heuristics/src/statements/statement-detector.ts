// Self-statements and simple third-party statements: "I'm Alice, CTO at Acme", "I work at
// Acme", "I live in Berlin", "my title is VP of Engineering", "Bob is the CFO of Acme".
import type { Finding, TurnContext } from "../heuristic-types";
import { isCommonWord } from "../lexicons/phatic-lexicon";
import { isDepartment, isRolePhrase } from "../lexicons/role-lexicon";
import type { Sentence } from "../text/sentence-splitter";
import { STATEMENT_RULES, type StatementRule } from "./statement-grammar";
import { prepareClause, type PreparedClause } from "../text/clause-preparer";
import { buildStatementFinding, type StatementFacts } from "./statement-finding";

export function detectStatement(
  clause: Sentence,
  context: TurnContext,
  prepared = prepareClause(clause.text, context.referenceTime),
): Finding | undefined {
  for (const rule of STATEMENT_RULES) {
    // "I" in a document or an assistant's turn is not the person this memory is about.
    if (!context.fromUser && rule.kind !== "third_party") continue;
    const groups = rule.pattern.exec(prepared.body)?.groups;
    const facts = groups ? readStatement(rule, groups) : undefined;
    if (facts) return buildStatementFinding(facts, { rule, clause, prepared, context });
  }
  return undefined;
}

/** The introduced name, if the clause is an introduction ("I'm Alice", "my name is Alice"). */
export function introducedName(clause: Sentence, prepared?: PreparedClause): string | undefined {
  const body = (prepared ?? prepareClause(clause.text)).body;
  const intro = STATEMENT_RULES[0];
  const groups = intro ? intro.pattern.exec(body)?.groups : undefined;
  return groups && intro ? readStatement(intro, groups)?.introduces : undefined;
}

function readStatement(rule: StatementRule, groups: Record<string, string | undefined>): StatementFacts | undefined {
  const { name, org, place, email, key } = groups;
  const role = groups.role;
  if (name !== undefined && !isPersonName(name)) return undefined;
  if (org !== undefined && isCommonWord(org)) return undefined;
  if (place !== undefined && isCommonWord(place)) return undefined;
  // An explicit "my title is …" may be any short phrase; elsewhere the phrase must read as a role.
  if (role !== undefined && rule.kind !== "title" && !isRolePhrase(role)) return undefined;
  if (rule.kind === "title" && role !== undefined && role.split(/\s+/).length > 6) return undefined;
  const split = splitDepartment(role, org);
  return {
    subject: rule.kind === "third_party" ? (name ?? "") : "speaker",
    introduces: rule.kind === "intro" ? name : undefined,
    role: split.role,
    roleKey: key === "title" ? "title" : "role",
    org: split.org,
    place,
    email,
  };
}

/** "VP of Engineering" is one role, not the VP of an organisation called Engineering. */
function splitDepartment(role: string | undefined, org: string | undefined): { role?: string; org?: string } {
  if (role !== undefined && org !== undefined && isDepartment(org)) return { role: `${role} of ${org}` };
  return { role, org };
}

function isPersonName(name: string): boolean {
  return name.split(/\s+/).every((part) => !isCommonWord(part)) && !isRolePhrase(name);
}
