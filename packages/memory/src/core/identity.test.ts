import { identityKey, lookalikeKey, namesSomething, visibleName } from "./identity";

// The five spellings of issue #42: Latin, a zero-width joiner inside, a Greek capital Alpha,
// a Cyrillic small es, and "ecilA" under a right-to-left override (shown as "Alice").
const ALICES = ["Alice", "Al\u200dice", "\u0391lice", "Ali\u0441e", "\u202eecilA"];

test.each(ALICES)("%j has the identity key alice", (name) => {
  expect(identityKey(name)).toBe("alice");
});

test.each(ALICES)("%j is displayed as Alice, without controls", (name) => {
  const shown = visibleName(name);
  expect(shown).not.toMatch(/[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u00ad]/u);
  expect(identityKey(shown)).toBe("alice");
});

test.each([
  ["soft hyphen", "Ali\u00adce"],
  ["zero-width space", "\u200bAlice\u200b"],
  ["word joiner", "Ali\u2060ce"],
  ["byte order mark", "\ufeffAlice"],
  ["left-to-right mark and isolate", "\u200eAl\u2066ice\u2069"],
  ["full-width letters (NFKC)", "\uff21\uff4c\uff49\uff43\uff45"],
])("%s is not part of the key", (_what, name) => {
  expect(identityKey(name)).toBe("alice");
});

test("an override that ends before the rest of the name reverses only its run", () => {
  expect(visibleName("Dr \u202eecilA\u202c Chen")).toBe("Dr Alice Chen");
  // Right-to-left letters under an override are drawn as always: the logical order is the one read.
  expect(visibleName("\u202e\u05d3\u05e0\u05d4")).toBe("\u05d3\u05e0\u05d4");
});

test("a name in one script keeps its own key: a real Greek or Cyrillic name is not folded", () => {
  expect(identityKey("Αλίκη")).toBe("αλίκη");
  expect(identityKey("Алиса")).toBe("алиса");
  // Scripts mixed across words, as in bilingual names, are left alone; within a word they are folded.
  expect(identityKey("Tom 工藤")).toBe("tom 工藤");
  expect(identityKey("Alice Алиса")).toBe("alice алиса");
  expect(identityKey("J\u043ehn Smith")).toBe("john smith");
});

test("a whole-script look-alike of a Latin name is told, not folded into the key", () => {
  const cyrillic = "\u0421\u043e\u0441\u043e"; // Сосо, every letter Cyrillic
  expect(identityKey(cyrillic)).toBe("сосо");
  expect(lookalikeKey(cyrillic)).toBe("coco");
  expect(lookalikeKey("Алиса")).toBeUndefined(); // и and л look like no Latin letter
  expect(lookalikeKey("Alice")).toBeUndefined();
});

test.each(["!!!", "???", "\u200b", " ", "\u202e\u202c", "'s", "…", "\u00ad\u00ad"])("%j names nothing", (name) => {
  expect(identityKey(name)).toBe("");
  expect(namesSomething(name)).toBe(false);
});

test.each(["Alice", "R2", "7", "Αλίκη", "工藤", "O'Brien"])("%j names something", (name) => {
  expect(namesSomething(name)).toBe(true);
});

test("keys already stored keep their meaning for names without look-alikes or controls", () => {
  expect(identityKey("Alice's")).toBe("alice");
  expect(identityKey("  Acme   Corp. ")).toBe("acme corp");
  expect(identityKey("Zoë")).toBe("zoë");
  expect(identityKey("Café Ünter")).toBe("café ünter");
});
