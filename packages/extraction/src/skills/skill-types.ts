// A skill: domain guidance for extraction, read from a SKILL.md file.
import { z } from "zod";
import { SetupError } from "@recall/contracts";

export interface Skill {
  /** Directory path relative to the skills root, with forward slashes ("extraction/technical-docs"). */
  id: string;
  name: string;
  description?: string;
  /** Entity types the skill expects; always includes the wildcard `topic`. */
  entityTypes: string[];
  keyPredicates: string[];
  /** Predicates whose new value supersedes the old one (role, lives_in, …). */
  singleValued: string[];
  /** Other ids the skill answers to, from its front matter. */
  aliases: string[];
  /** The markdown guidance given to model stages. */
  body: string;
  /** Absolute path of the SKILL.md file. */
  path: string;
}

/** The wildcard entity type: any skill accepts it, and it upgrades to a specific type on reuse. */
export const WILDCARD_ENTITY_TYPE = "topic";

const List = z.array(z.string().min(1)).default([]);

/** Front matter keys a SKILL.md may set; unknown keys are ignored. */
export const SkillFrontMatter = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  aliases: List,
  entity_types: List,
  key_predicates: List,
  single_valued: List,
});
export type SkillFrontMatter = z.infer<typeof SkillFrontMatter>;

export class SkillLoadError extends SetupError {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(`${message} (${path})`);
    this.name = "SkillLoadError";
  }
}
