// tsx bench/recall/lexical-reach.ts [--data <dir>] — how many questions a ranking that matches words could find at
// all: the share of QA questions (categories 1–4) with an evidence turn that shares at least one content word with
// the question (lower-cased; stop words, words under three letters and the two speakers' names dropped; a plural,
// -ed or -ing ending cut), in the turn's text and photo caption, and again with the turn's annotated observations
// added (what a fact-keyed ranking reads). A hit@k goal above the second share needs something that relates
// different words (an embedding model). Reads the dataset only: no service, no database.
import { CATEGORY_NAMES, readRecallData } from "./recall-data";
import { defaultLocomoDir } from "../shared/gate-locomo";

const STOP = new Set(
  (
    "a an the and or but if of to in on at by for with about as from into over after before under again further then " +
    "once here there when where why how all any both each few more most other some such no nor not only own same so " +
    "than too very can will just should now i me my myself we our ours you your yours he him his she her hers it its " +
    "they them their what which who whom this that these those am is are was were be been being have has had having do " +
    "does did doing would could might must shall may also like get got go going went one two really yeah oh hey hi " +
    "thanks thank lot much many time"
  ).split(" "),
);

function contentWords(text: string): Set<string> {
  const words = new Set<string>();
  for (let word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (STOP.has(word) || word.length < 3) continue;
    const ending = ["ing", "ed", "es", "s"].find((e) => word.endsWith(e) && word.length - e.length >= 3);
    if (ending) word = word.slice(0, -ending.length);
    words.add(word);
  }
  return words;
}

const shares = (a: Set<string>, b: Set<string>) => [...a].some((w) => b.has(w));

function main(): void {
  const at = process.argv.indexOf("--data");
  const dir = at > 0 ? process.argv[at + 1]! : defaultLocomoDir();
  const data = readRecallData(dir);
  const byCategory = new Map<number, { questions: number; text: number; facts: number }>();
  for (const c of data.conversations) {
    const turns = new Map(c.turns.map((t) => [t.diaId, t]));
    const speakers = contentWords([...new Set(c.turns.map((t) => t.speaker))].join(" "));
    for (const q of data.questions.filter((q) => q.file === c.file)) {
      const evidence = q.evidence.map((id) => turns.get(id)).filter((t) => t !== undefined);
      if (evidence.length === 0) continue;
      const asked = new Set([...contentWords(q.question)].filter((w) => !speakers.has(w)));
      const said = (t: (typeof evidence)[number]) => `${t.text} ${t.image?.caption ?? ""}`;
      const row = byCategory.get(q.category) ?? { questions: 0, text: 0, facts: 0 };
      row.questions += 1;
      if (evidence.some((t) => shares(asked, contentWords(said(t))))) row.text += 1;
      if (evidence.some((t) => shares(asked, contentWords(`${said(t)} ${t.observations.join(" ")}`)))) row.facts += 1;
      byCategory.set(q.category, row);
    }
  }
  const all = { questions: 0, text: 0, facts: 0 };
  console.log("| category | questions | an evidence turn shares a word: text and caption | with its facts |\n|---|---|---|---|");
  for (const [category, row] of [...byCategory].sort((a, b) => a[0] - b[0])) {
    for (const k of ["questions", "text", "facts"] as const) all[k] += row[k];
    console.log(`| ${CATEGORY_NAMES[category]} | ${row.questions} | ${row.text} | ${row.facts} |`);
  }
  const share = (n: number) => (n / all.questions).toFixed(3);
  console.log(`| overall | ${all.questions} | ${all.text} (${share(all.text)}) | ${all.facts} (${share(all.facts)}) |`);
  console.log(
    JSON.stringify({ questions: all.questions, reach_text: Number(share(all.text)), reach_with_facts: Number(share(all.facts)) }),
  );
}

main();
