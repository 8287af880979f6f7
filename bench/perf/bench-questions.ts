// The LoCoMo QA questions, used as realistic /query texts ("When did Caroline go to the support group?").
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";

const Qa = z.looseObject({ qa: z.array(z.looseObject({ question: z.string() })).default([]) });

export function loadQuestions(dir: string): Map<string, string[]> {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".json"));
  return new Map(files.map((f) => [f, Qa.parse(JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"))).qa.map((q) => q.question)]));
}
