// Month names that are also given names (June, April, May, Jun) date a fact only when a
// preposition or a modifier makes them a time; alone they are read as names.
import { findTemporalPhrases } from "./temporal-resolver";

const REF = new Date("2024-05-15T10:00:00Z");
const phrases = (text: string) =>
  findTemporalPhrases(text, REF).map((p) => [p.text, p.relation, p.period.start.toISOString().slice(0, 10)]);

test.each<[string, string[][]]>([
  ["Thanks Jun, I started at Acme.", []],
  ["Jun said she moved to Paris.", []],
  ["I met April at the gym.", []],
  ["May I ask where you live?", []],
  ["In June I moved to Paris.", [["June", "at", "2024-06-01"]]],
  ["I've lived in Berlin since Jun.", [["since Jun.", "since", "2023-06-01"]]],
  ["I moved to Paris in early March.", [["March", "at", "2024-03-01"]]],
  ["June 5 was my first day.", [["June 5", "at", "2024-06-05"]]],
  ["The project runs until December.", [["until December", "until", "2024-12-01"]]],
])("%s", (text, expected) => {
  expect(phrases(text)).toEqual(expected);
});

// A month's name without a year, said on 2024-05-15: the direction the words give decides the year.
test.each<[string, string[][]]>([
  ["I moved to Paris last June.", [["last June", "at", "2023-06-01"]]],
  ["I moved to Paris last March.", [["last March", "at", "2024-03-01"]]],
  ["Last April was rough.", [["Last April", "at", "2024-04-01"]]],
  ["I'll move to Lisbon next March.", [["next March", "at", "2025-03-01"]]],
  ["I'll move to Lisbon next June.", [["next June", "at", "2024-06-01"]]],
  ["I've worked at Acme since September.", [["since September", "since", "2023-09-01"]]],
  ["I've worked at Acme since March.", [["since March", "since", "2024-03-01"]]],
  ["I'm at Acme until March.", [["until March", "until", "2025-03-01"]]],
  ["We met on June 5.", [["June 5", "at", "2024-06-05"]]],
  ["I moved there in June 2022.", [["June 2022", "at", "2022-06-01"]]],
])("%s", (text, expected) => {
  expect(phrases(text)).toEqual(expected);
});
