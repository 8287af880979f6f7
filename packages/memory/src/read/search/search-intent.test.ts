import { searchIntent } from "./search-intent";

const NOW = new Date("2026-12-05T00:00:00Z");

test("a month or year the query names is read whatever the rest of the date", () => {
  expect(searchIntent("When did Melanie go camping in June?", NOW).calendar).toEqual({ months: [6], years: [] });
  expect(searchIntent("How many times did she go to the beach in 2023?", NOW).calendar).toEqual({ months: [], years: [2023] });
  expect(searchIntent("What happened in May 2023 and july?", NOW).calendar).toEqual({ months: [5, 7], years: [2023] });
});

test("'may' counts as the month only capitalised after the first word", () => {
  expect(searchIntent("May I ask what she painted?", NOW).calendar.months).toEqual([]);
  expect(searchIntent("what she may have painted", NOW).calendar.months).toEqual([]);
  expect(searchIntent("a number like 12023 or 1850 is no year", NOW).calendar.years).toEqual([]);
});
