import type { Config } from "@recall/config";
import type { Embedder } from "@recall/contracts";
import type { Db } from "@recall/db";
import type { CpuRunner, ExtractorFactory, Skill } from "@recall/extraction";
import type { QueueSet } from "@recall/pipeline";
import type { Logger } from "@recall/telemetry";

/** The parts of a skill the pipeline reads after extraction. */
export interface SkillInfo {
  id: string;
  entityTypes: string[];
  singleValued: string[];
}

export interface SkillCatalog {
  get(id: string): SkillInfo | undefined;
}

/** What every processor may use; built once per process in main.ts (or a test). */
export interface WorkerDeps {
  config: Config;
  db: Db;
  queues: QueueSet;
  logger: Logger;
  extractorFor: ExtractorFactory;
  /** Where CPU-bound steps run: the process's CPU pool (worker threads with time and heap limits). */
  cpu: CpuRunner;
  skills: SkillCatalog;
  skillList: readonly Skill[];
  /**
   * The embedding model, or undefined when RECALL_EMBEDDING_MODEL is unset. Throws
   * NoProviderError while its credentials are missing, so the work item says what to set.
   */
  embedder: () => Embedder | undefined;
  /** Awaited inside each stage's writing transaction; a pause only in fault tests (RECALL_FAULT_DELAY_MS). */
  faultPoint: () => Promise<void>;
}
