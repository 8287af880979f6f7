// Fact keys every layer agrees on: the ones a subject holds one current value of unless a skill says otherwise.

/** Single-valued by default (a skill adds its own): a newer value closes the older one (truth/truth-maintenance.ts). */
export const DEFAULT_SINGLE_VALUED = ["role", "title", "lives_in", "works_at", "employer", "email", "name"] as const;
