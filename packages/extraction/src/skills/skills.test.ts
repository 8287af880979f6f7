import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  findSkill,
  loadSkills,
  normaliseSkillId,
  resolveExtractionPlan,
  skillFromText,
  SkillLoadError,
  SkillResolutionError,
  type PlanInput,
  type Skill,
} from "./index";

let repoSkills: Skill[];
let tempRoot: string;

beforeAll(async () => {
  repoSkills = await loadSkills();
  tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), "recall-skills-"));
  write("SKILL.md", "---\nname: stray\n---\nA file at the root has no id.");
  write(
    "acme/email-triage/SKILL.md",
    [
      "---",
      'name: "Email triage"',
      "entity_types:",
      "  - person",
      "  - ticket   # support tickets",
      "key_predicates: [assigned_to, 'escalated_to']",
      "single-valued: assigned_to",
      "aliases: triage",
      "---",
      "# Triage",
      "Read support mail.",
    ].join("\n"),
  );
});

afterAll(() => fs.rmSync(tempRoot, { recursive: true, force: true }));

function write(relative: string, text: string): void {
  const file = path.join(tempRoot, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

describe("loading skills", () => {
  test("the repository ships technical-docs, fiction and conversation, each allowing topic", () => {
    expect(repoSkills.map((s) => s.id)).toEqual(["extraction/conversation", "extraction/fiction", "extraction/technical-docs"]);
    for (const skill of repoSkills) {
      expect(skill.entityTypes).toContain("topic");
      expect(skill.body.length).toBeGreaterThan(200);
    }
  });

  test("front matter lists entity types, key predicates and single-valued predicates", () => {
    const tech = findSkill(repoSkills, "extraction/technical-docs")!;
    expect(tech.entityTypes).toEqual(expect.arrayContaining(["component", "platform", "concept", "data_model", "group"]));
    expect(tech.keyPredicates).toEqual([
      "depends_on",
      "part_of",
      "communicates_with",
      "uses",
      "implements",
      "stores_in",
      "chosen_over",
      "replaces",
    ]);
    const fiction = findSkill(repoSkills, "fiction")!;
    expect(fiction.entityTypes).toEqual(expect.arrayContaining(["person", "location", "device", "group"]));
    expect(fiction.keyPredicates).toEqual(expect.arrayContaining(["knows", "rules_over", "has_trait", "parent_of"]));
    const chat = findSkill(repoSkills, "conversation")!;
    expect(chat.singleValued).toEqual(expect.arrayContaining(["role", "title", "lives_in", "works_at", "employer", "email", "name"]));
    expect(chat.keyPredicates).toEqual(expect.arrayContaining(["works_at", "lives_in", "likes"]));
  });

  test("ids are folder paths under the root; block lists, inline lists, quotes and comments all parse", async () => {
    const skills = await loadSkills(tempRoot);
    expect(skills.map((s) => s.id)).toEqual(["acme/email-triage"]);
    expect(skills[0]).toMatchObject({
      name: "Email triage",
      entityTypes: ["person", "ticket", "topic"],
      keyPredicates: ["assigned_to", "escalated_to"],
      singleValued: ["assigned_to"],
      aliases: ["triage"],
      body: "# Triage\nRead support mail.",
    });
  });

  test("front matter is YAML: folded text and quoted colons read; a broken block is an error naming the file", () => {
    const text = ["---", "description: >", "  Release notes,", "  one per version.", 'name: "Notes: releases"', "---", "Body."].join("\n");
    expect(skillFromText("notes", text, "/x/notes/SKILL.md")).toMatchObject({
      name: "Notes: releases",
      description: "Release notes, one per version.",
      body: "Body.",
    });
    const broken = () => skillFromText("notes", "---\nname: [unclosed\n---\nBody.", "/x/notes/SKILL.md");
    expect(broken).toThrow(SkillLoadError);
    expect(broken).toThrow(/not YAML.*\/x\/notes\/SKILL\.md/);
  });

  test("a file without front matter is all guidance; a missing folder is an error", async () => {
    const skill = skillFromText("notes", "Just guidance.", "/x/notes/SKILL.md");
    expect(skill).toMatchObject({ id: "notes", name: "notes", body: "Just guidance.", entityTypes: ["topic"] });
    await expect(loadSkills(path.join(tempRoot, "missing"))).rejects.toBeInstanceOf(SkillLoadError);
  });
});

describe("finding a skill by a loosely written id", () => {
  test.each([
    ["extraction/technical-docs", "extraction/technical-docs"],
    ["technical-docs", "extraction/technical-docs"],
    ["Technical Docs", "extraction/technical-docs"],
    ["technical_docs", "extraction/technical-docs"],
    ["EXTRACTION/Technical_Docs", "extraction/technical-docs"],
    ["extraction / technical docs", "extraction/technical-docs"],
    ["fiction/", "extraction/fiction"],
    ["extraction/conversation/SKILL.md", "extraction/conversation"],
    ["chat", "extraction/conversation"],
  ])("%s → %s", (id, expected) => {
    expect(findSkill(repoSkills, id)?.id).toBe(expected);
  });

  test("unknown or empty ids find nothing", () => {
    expect(findSkill(repoSkills, "extraction/legal")).toBeUndefined();
    expect(findSkill(repoSkills, "  ")).toBeUndefined();
    expect(normaliseSkillId(" Extraction/Custom__Email ")).toBe("custom-email");
  });
});

describe("resolving the extraction plan", () => {
  const base = (over: Partial<PlanInput> = {}): PlanInput => ({
    contextConfig: {},
    documentMetadata: {},
    sourceMetadata: {},
    sourceType: "pdf",
    env: { skillBySourceType: {} },
    skills: repoSkills,
    subject: "document",
    ...over,
  });

  test.each<[string, Partial<PlanInput>, string, string]>([
    [
      "context config beats everything",
      { contextConfig: { skill: "fiction" }, documentMetadata: { skill: "conversation", genre: "runbook" } },
      "extraction/fiction",
      "context_config",
    ],
    [
      "document metadata, first populated key",
      { documentMetadata: { skill_id: "fiction", extraction_skill: "conversation" } },
      "extraction/conversation",
      "document_metadata",
    ],
    [
      "document metadata beats source metadata",
      { documentMetadata: { skill: "fiction" }, sourceMetadata: { skill: "conversation" } },
      "extraction/fiction",
      "document_metadata",
    ],
    ["source metadata", { sourceMetadata: { extraction_skill_id: "Conversation" } }, "extraction/conversation", "source_metadata"],
    ["document domain mapped to a built-in", { documentMetadata: { genre: "Novel" } }, "extraction/fiction", "document_domain"],
    [
      "document domain beats source domain",
      { documentMetadata: { domain: "chat" }, sourceMetadata: { domain: "story" } },
      "extraction/conversation",
      "document_domain",
    ],
    ["source domain", { sourceMetadata: { content_domain: "architecture" } }, "extraction/technical-docs", "source_domain"],
    [
      "source-type map, exact type",
      { sourceType: "email", env: { skillBySourceType: { email: "conversation", "*": "fiction" } } },
      "extraction/conversation",
      "source_type_map",
    ],
    [
      "source-type map, the document's format when its source type has no entry",
      { sourceType: "confluence", format: "markdown", env: { skillBySourceType: { markdown: "fiction", "*": "conversation" } } },
      "extraction/fiction",
      "source_type_map",
    ],
    [
      "source-type map, the source's own type before the format",
      { sourceType: "chat-export", format: "html", env: { skillBySourceType: { html: "fiction", "chat-export": "conversation" } } },
      "extraction/conversation",
      "source_type_map",
    ],
    [
      "source-type map, '*' fallback",
      { env: { skillBySourceType: { email: "conversation", "*": "fiction" } } },
      "extraction/fiction",
      "source_type_map",
    ],
    [
      "built-in default for documents",
      { env: { skillBySourceType: {}, defaultSkill: "fiction" } },
      "extraction/technical-docs",
      "source_type_default",
    ],
    ["built-in default for turns", { subject: "turn", sourceType: "conversation" }, "extraction/conversation", "source_type_default"],
  ])("%s", (_name, over, skillId, source) => {
    const plan = resolveExtractionPlan(base(over));
    expect(plan.skill.id).toBe(skillId);
    expect(plan.skillSource).toBe(source);
  });

  test("the env default applies only when the built-in default is missing", () => {
    const skills = [skillFromText("custom/general", "General guidance.", "/x/SKILL.md")];
    const plan = resolveExtractionPlan(base({ skills, env: { skillBySourceType: {}, defaultSkill: "custom/general" } }));
    expect(plan.skillSource).toBe("env_default");
    expect(plan.trace.find((t) => t.step === "skill.source_type_default")).toEqual({
      step: "skill.source_type_default",
      key: "document",
      value: "extraction/technical-docs",
      skillId: "extraction/technical-docs",
      outcome: "not_found",
    });
  });

  test("the trace records each step up to the choice, including skills that do not exist", () => {
    const plan = resolveExtractionPlan(
      base({
        contextConfig: { skill: "extraction/legal" },
        documentMetadata: { genre: "haiku", purpose: "who is who" },
        sourceMetadata: { domain: "fairy tale" },
        env: { skillBySourceType: {}, defaultPurpose: "everything" },
      }),
    );
    expect(plan.skill.id).toBe("extraction/fiction");
    expect(plan.trace).toEqual([
      { step: "skill.context_config", key: "skill", value: "extraction/legal", skillId: "extraction/legal", outcome: "not_found" },
      { step: "skill.document_metadata", outcome: "absent" },
      { step: "skill.source_metadata", outcome: "absent" },
      { step: "skill.document_domain", key: "genre", value: "haiku", outcome: "unmapped" },
      { step: "skill.source_domain", key: "domain", value: "fairy tale", skillId: "extraction/fiction", outcome: "selected" },
      { step: "purpose.context_config", outcome: "absent" },
      { step: "purpose.document_metadata", key: "purpose", value: "who is who", outcome: "selected" },
    ]);
    expect(plan).toMatchObject({ purpose: "who is who", purposeSource: "document_metadata", skillSource: "source_domain" });
  });

  test.each<[string, Partial<PlanInput>, string | undefined, string | undefined]>([
    ["context config", { contextConfig: { purpose: "org chart" }, documentMetadata: { purpose: "x" } }, "org chart", "context_config"],
    [
      "document metadata prefers extraction_purpose",
      { documentMetadata: { purpose: "b", extraction_purpose: "a" } },
      "a",
      "document_metadata",
    ],
    ["source metadata", { sourceMetadata: { purpose: "s" }, env: { skillBySourceType: {}, defaultPurpose: "d" } }, "s", "source_metadata"],
    ["env default", { env: { skillBySourceType: {}, defaultPurpose: "d" } }, "d", "env_default"],
    ["none", { documentMetadata: { purpose: "   " } }, undefined, undefined],
  ])("purpose from %s", (_name, over, purpose, source) => {
    const plan = resolveExtractionPlan(base(over));
    expect(plan.purpose).toBe(purpose);
    expect(plan.purposeSource).toBe(source);
  });

  test("non-string metadata is ignored, and with no skill at all the error carries the trace", () => {
    const plan = resolveExtractionPlan(base({ documentMetadata: { skill: 42, domain: { x: 1 } } }));
    expect(plan.skillSource).toBe("source_type_default");
    let error: unknown;
    try {
      resolveExtractionPlan(base({ skills: [], contextConfig: { skill: "fiction" } }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SkillResolutionError);
    expect((error as SkillResolutionError).trace.map((t) => t.outcome)).toEqual([
      "not_found",
      "absent",
      "absent",
      "absent",
      "absent",
      "absent",
      "not_found",
      "absent",
    ]);
  });
});
