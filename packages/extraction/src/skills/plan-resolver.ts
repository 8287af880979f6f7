// The resolution cascade: which skill and purpose apply, first populated source wins,
// and every step is kept in a trace so the document status can say why.
import { findSkill, type Skill } from "./skill-loader";

type Metadata = Record<string, unknown>;

export interface PlanInputs {
  contextConfig: Metadata;
  documentMetadata: Metadata;
  sourceMetadata: Metadata;
  sourceType: string;
  env: { skillBySourceType: Record<string, string>; defaultSkill?: string; defaultPurpose?: string };
  skills: readonly Skill[];
  subject: "document" | "turn";
}

export interface TraceStep {
  step: string;
  key?: string;
  value?: string;
  outcome: "chosen" | "not_found" | "empty";
}

export interface ExtractionPlan {
  skill: Skill;
  skillSource: string;
  purpose?: string;
  purposeSource?: string;
  trace: TraceStep[];
}

const SKILL_KEYS = ["extraction_skill", "extraction_skill_id", "skill", "skill_id"];
const DOMAIN_KEYS = ["extraction_domain", "domain", "genre", "content_domain"];
const PURPOSE_KEYS = ["extraction_purpose", "purpose"];

const DOMAIN_SKILLS: [RegExp, string][] = [
  [/^(fiction|novel|story|stories|narrative|literature)$/, "extraction/fiction"],
  [/^(architecture|spec|specification|runbook|technical|tech|engineering|docs?)$/, "extraction/technical-docs"],
  [/^(chat|conversation|dialogue|messages?|email)$/, "extraction/conversation"],
];

const SOURCE_TYPE_DEFAULT = { document: "extraction/technical-docs", turn: "extraction/conversation" } as const;

function firstString(meta: Metadata, keys: string[]): [string, string] | undefined {
  for (const key of keys) {
    const value = meta[key];
    if (typeof value === "string" && value.trim()) return [key, value.trim()];
  }
  return undefined;
}

function domainSkill(domain: string): string | undefined {
  return DOMAIN_SKILLS.find(([pattern]) => pattern.test(domain.toLowerCase()))?.[1];
}

export function resolveExtractionPlan(inputs: PlanInputs): ExtractionPlan {
  const trace: TraceStep[] = [];
  const named = (step: string, found: [string, string] | undefined, toSkill: (v: string) => string | undefined = (v) => v) => {
    if (!found) return (trace.push({ step, outcome: "empty" }), undefined);
    const skill = toSkill(found[1]) ? findSkill(inputs.skills, toSkill(found[1])!) : undefined;
    trace.push({ step, key: found[0], value: found[1], outcome: skill ? "chosen" : "not_found" });
    return skill && { skill, skillSource: step };
  };
  const { env } = inputs;
  const mapped = env.skillBySourceType[inputs.sourceType] ?? env.skillBySourceType["*"];
  const choice =
    named("context_config", firstString(inputs.contextConfig, ["skill"])) ??
    named("document_metadata", firstString(inputs.documentMetadata, SKILL_KEYS)) ??
    named("source_metadata", firstString(inputs.sourceMetadata, SKILL_KEYS)) ??
    named("document_domain", firstString(inputs.documentMetadata, DOMAIN_KEYS), domainSkill) ??
    named("source_domain", firstString(inputs.sourceMetadata, DOMAIN_KEYS), domainSkill) ??
    named("source_type_map", mapped ? ["PIPELINE_SKILL_BY_SOURCE_TYPE_JSON", mapped] : undefined) ??
    named("source_type_default", [inputs.subject, SOURCE_TYPE_DEFAULT[inputs.subject]]) ??
    named("env_default", env.defaultSkill ? ["PIPELINE_DEFAULT_EXTRACTION_SKILL", env.defaultSkill] : undefined);
  if (!choice)
    throw new Error(
      `no extraction skill could be resolved; the skills directory holds: ${inputs.skills.map((s) => s.id).join(", ") || "nothing"}`,
    );
  return { ...choice, ...resolvePurpose(inputs), trace };
}

function resolvePurpose(inputs: PlanInputs): { purpose?: string; purposeSource?: string } {
  const sources: [string, [string, string] | undefined][] = [
    ["context_config", firstString(inputs.contextConfig, ["purpose"])],
    ["document_metadata", firstString(inputs.documentMetadata, PURPOSE_KEYS)],
    ["source_metadata", firstString(inputs.sourceMetadata, PURPOSE_KEYS)],
    ["env_default", inputs.env.defaultPurpose ? ["PIPELINE_DEFAULT_EXTRACTION_PURPOSE", inputs.env.defaultPurpose] : undefined],
  ];
  const hit = sources.find(([, found]) => found);
  return hit ? { purpose: hit[1]![1], purposeSource: hit[0] } : {};
}
