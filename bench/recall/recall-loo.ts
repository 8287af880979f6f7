// Leave-one-conversation-out figures for bench:recall: the ranking's weights are chosen on
// four conversations and measured on the fifth, for each of the five, so the figure printed
// is one no weight was fitted to. The choice is a coordinate ascent from the weights /query
// had before any tuning (BASE): each weight in turn takes the value of its grid that ranks
// the training questions best (hit@5 + hit@10), the others held. Every question is ranked by
// the entry point /query calls (searchMemory), directly on the bench's database; a setting's
// rankings are computed once and shared by the folds that try it.
import { createDb, withTenant, type Db } from "@recall/db";
import { SEARCH_KINDS, searchMemory, type RankingWeights } from "@recall/memory";
import type { RecallQuestion } from "./recall-data";
import type { LoadedConversation } from "./recall-load";

/** /query's weights before issue 30's signals: where every fold's ascent starts. */
export const BASE: Partial<RankingWeights> = {
  neighbour: 0.4,
  neighbour2: 0,
  namedSpeaker: 0,
  calendar: 0,
  speaker: 0.5,
  statesTime: 0.25,
  inPeriod: 0.5,
  factLift: 0.5,
  factKey: 0,
  factList: 0.5,
  session: 0,
};

/** The values each weight may take, in the order the ascent visits them (0 turns a signal off). */
export const GRID: [keyof RankingWeights, number[]][] = [
  ["neighbour", [0.2, 0.4, 0.6]],
  ["neighbour2", [0, 0.15, 0.3, 0.45]],
  ["session", [0, 0.25, 0.5, 1]],
  ["namedSpeaker", [0, 0.5, 1, 2]],
  ["speaker", [0, 0.5, 1]],
  ["calendar", [0, 0.5, 1, 2]],
  ["statesTime", [0, 0.25, 0.5]],
  ["inPeriod", [0, 0.5, 1]],
  ["factLift", [0, 0.5, 1]],
  ["factKey", [0, 0.5, 1]],
  ["factList", [0.25, 0.5]],
];

const DEPTH = 20;
const PARALLEL = 4;

type Ranked = string[][][];

/** Ranks every question under a setting, once per setting. */
export class SettingRanker {
  private readonly db: Db;
  private readonly cache = new Map<string, Promise<Ranked>>();
  private readonly byFile: Map<string, LoadedConversation>;

  constructor(
    databaseUrl: string,
    private readonly questions: RecallQuestion[],
    loaded: LoadedConversation[],
  ) {
    this.db = createDb({ databaseUrl, poolMax: PARALLEL * 2 });
    this.byFile = new Map(loaded.map((c) => [c.file, c]));
  }

  rank(ranking: Partial<RankingWeights>): Promise<Ranked> {
    const key = JSON.stringify(Object.entries(ranking).sort());
    if (!this.cache.has(key)) this.cache.set(key, this.rankAll(ranking));
    return this.cache.get(key)!;
  }

  get settingsRanked(): number {
    return this.cache.size;
  }

  close(): Promise<void> {
    return this.db.$disconnect();
  }

  private async rankAll(ranking: Partial<RankingWeights>): Promise<Ranked> {
    const ranked: Ranked = new Array(this.questions.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < this.questions.length; i = next++) {
        const q = this.questions[i]!;
        const c = this.byFile.get(q.file)!;
        const input = {
          contextId: c.contextId,
          scope: c.scope,
          query: q.question,
          limit: DEPTH,
          kinds: SEARCH_KINDS,
          match: "any" as const,
        };
        // As the service runs it: in the question's context, under row-level security.
        const { results } = await withTenant(c.contextId, () => searchMemory(this.db, { ...input, ranking }));
        ranked[i] = results.map((r) => [c.diaIds[r.link.turn_id ?? ""]].filter((id): id is string => id !== undefined));
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    // A ranking that found nothing for any question is a broken bench (a query outside its context sees no row), not a figure.
    if (ranked.every((ids) => ids.length === 0)) throw new Error(`no question found any turn under ${JSON.stringify(ranking)}`);
    return ranked;
  }
}

/** hit@5 + hit@10 of one ranking over some questions: what the ascent maximises. */
function fitness(questions: RecallQuestion[], ranked: Ranked, indexes: number[]): number {
  return indexes.reduce((sum, i) => {
    const evidence = new Set(questions[i]!.evidence);
    const first = ranked[i]!.findIndex((ids) => ids.some((id) => evidence.has(id)));
    return sum + (first >= 0 && first < 5 ? 1 : 0) + (first >= 0 && first < 10 ? 1 : 0);
  }, 0);
}

/** Where an ascent starts and the values it may give each weight: bench:recall's is BASE over GRID. */
export interface AscentSpace {
  start: Partial<RankingWeights>;
  grid: [keyof RankingWeights, number[]][];
}

const RECALL_SPACE: AscentSpace = { start: BASE, grid: GRID };

/** Coordinate ascent over the space's grid (less `without`'s weights, held at 0) on the questions `train` indexes. */
export async function ascend(
  ranker: SettingRanker,
  questions: RecallQuestion[],
  train: number[],
  without: (keyof RankingWeights)[] = [],
  space: AscentSpace = RECALL_SPACE,
): Promise<Partial<RankingWeights>> {
  let setting: Partial<RankingWeights> = { ...space.start, ...Object.fromEntries(without.map((k) => [k, 0])) };
  for (const [key, values] of space.grid) {
    if (without.includes(key)) continue;
    let best: [number, number] = [setting[key]!, fitness(questions, await ranker.rank(setting), train)];
    for (const value of values) {
      const f = fitness(questions, await ranker.rank({ ...setting, [key]: value }), train);
      if (f > best[1]) best = [value, f];
    }
    setting = { ...setting, [key]: best[0] };
  }
  return setting;
}

export interface HeldOut {
  /** Every question ranked by the setting chosen on the other conversations. */
  ranked: Ranked;
  /** The setting each held-out conversation got. */
  chosen: Record<string, Partial<RankingWeights>>;
}

/** Leave one conversation out: per conversation, the setting the ascent chose on the others ranks its questions. */
export async function leaveOneOut(
  ranker: SettingRanker,
  questions: RecallQuestion[],
  without: (keyof RankingWeights)[] = [],
  space: AscentSpace = RECALL_SPACE,
): Promise<HeldOut> {
  const ranked: Ranked = new Array(questions.length);
  const chosen: HeldOut["chosen"] = {};
  for (const file of new Set(questions.map((q) => q.file))) {
    const train = questions.flatMap((q, i) => (q.file === file ? [] : [i]));
    chosen[file] = await ascend(ranker, questions, train, without, space);
    const pick = await ranker.rank(chosen[file]);
    questions.forEach((q, i) => {
      if (q.file === file) ranked[i] = pick[i]!;
    });
  }
  return { ranked, chosen };
}
