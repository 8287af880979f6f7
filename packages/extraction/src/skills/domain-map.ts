// Content domains ("novel", "runbook", "chat") mapped to the built-in skills.

const BUILT_IN: Record<string, string[]> = {
  "extraction/fiction": [
    "fiction",
    "novel",
    "novels",
    "story",
    "stories",
    "short-story",
    "narrative",
    "literature",
    "book",
    "fairy-tale",
    "fanfiction",
  ],
  "extraction/technical-docs": [
    "architecture",
    "spec",
    "specs",
    "specification",
    "runbook",
    "runbooks",
    "technical",
    "technical-docs",
    "tech",
    "engineering",
    "design-doc",
    "adr",
    "rfc",
    "documentation",
    "docs",
    "api",
    "software",
  ],
  "extraction/conversation": ["chat", "chats", "conversation", "conversations", "dialogue", "dialog", "messaging", "transcript", "turns"],
};

const BY_DOMAIN = new Map(Object.entries(BUILT_IN).flatMap(([skill, domains]) => domains.map((d) => [d, skill] as const)));

/** The built-in skill id for a domain, or undefined when the domain is not a known one. */
export function skillForDomain(domain: string): string | undefined {
  return BY_DOMAIN.get(
    domain
      .trim()
      .toLowerCase()
      .replace(/[\s_]+/g, "-"),
  );
}

/** Default skill for what is being extracted when nothing more specific applies. */
export function builtInDefault(subject: "document" | "turn"): string {
  return subject === "turn" ? "extraction/conversation" : "extraction/technical-docs";
}
