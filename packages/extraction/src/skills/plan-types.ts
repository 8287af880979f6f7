// Inputs and result of the extraction plan: which skill and purpose apply, and the trace of why.
import { ClassifiedError, type ContextConfig } from "@recall/contracts";
import type { Skill } from "./skill-types";

export type PlanSubject = "document" | "turn";

export interface PlanEnv {
  /** Source type → skill id, with "*" as the fallback (PIPELINE_SKILL_BY_SOURCE_TYPE_JSON). */
  skillBySourceType: Record<string, string>;
  defaultSkill?: string;
  defaultPurpose?: string;
}

export interface PlanInput {
  /** The context's config, read through its schema (`skill`, `purpose`). */
  contextConfig?: ContextConfig | null;
  documentMetadata?: Record<string, unknown> | null;
  sourceMetadata?: Record<string, unknown> | null;
  sourceType?: string | null;
  /** A document's format (markdown, html, pdf, text): looked up in the source-type map after the source's own type. */
  format?: string | null;
  env: PlanEnv;
  skills: readonly Skill[];
  subject: PlanSubject;
}

export type SkillSource =
  | "context_config"
  | "document_metadata"
  | "source_metadata"
  | "document_domain"
  | "source_domain"
  | "source_type_map"
  | "source_type_default"
  | "env_default";

export type PurposeSource = "context_config" | "document_metadata" | "source_metadata" | "env_default";

/** One step of the cascade: where it looked, what it found, and what came of it. */
export interface PlanTraceEntry {
  /** "skill.<source>" or "purpose.<source>". */
  step: string;
  key?: string;
  value?: string;
  /** The skill id the value named or mapped to, when a skill was looked up. */
  skillId?: string;
  outcome: "selected" | "absent" | "not_found" | "unmapped";
}

export interface ExtractionPlan {
  skill: Skill;
  skillSource: SkillSource;
  purpose?: string;
  purposeSource?: PurposeSource;
  trace: PlanTraceEntry[];
}

/** Classified as an unnamed failure would be: internal, and worth another try (the skills may be fixed meanwhile). */
export class SkillResolutionError extends ClassifiedError {
  readonly errorClass = "internal";
  readonly retryable = true;
  constructor(readonly trace: PlanTraceEntry[]) {
    super(`no extraction skill could be resolved (tried: ${trace.map((t) => `${t.step}=${t.value ?? "-"}`).join(", ")})`);
    this.name = "SkillResolutionError";
  }
}
