// What other packages use of @recall/extraction, and only that: everything else in it is internal.
export { chunkText } from "./chunker";
export { CpuPool, type CpuRunner } from "./cpu/cpu-pool";
export { type BatchReading, type RuleBatch } from "./cpu/rule-reading";
export { rememberEntities } from "./known-entities";
export { DOCUMENT_FORMATS, type DocumentFormat } from "./documents/document-types";
export { SUPPORTED_MEDIA_TYPES, detectFormat, mediaTypeOf } from "./documents/format-detection";
export { type BudgetLimits, type ExtractionGuidance, type Extractor, type ExtractorFactory, type StageOutcome } from "./extractor";
export { type ModelDiff } from "./model-output";
export { knownEntitiesBlock, systemPrompt } from "./model-prompt";
export { resolveExtractionPlan } from "./skills/plan-resolver";
export { findSkill } from "./skills/skill-finder";
export { loadSkills } from "./skills/skill-loader";
export { type Skill } from "./skills/skill-types";
export { createStagedExtractorFactory } from "./staged-extractor";
export { WindowDiff, splitWindowDiff, strayTurns } from "./window-output";
export { windowPrompt } from "./window-prompt";
