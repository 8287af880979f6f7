// Refreshes infra/test-durations.json (the order infra/test-sequencer.js gives a fresh clone) from Jest's reports:
//   pnpm test --json --outputFile=/tmp/suite.json; pnpm test:faults --json --outputFile=/tmp/faults.json
//   pnpm test:durations /tmp/suite.json /tmp/faults.json
// Each file measured takes its seconds from the reports; a file they do not name keeps its entry while it exists.
// Files under MIN_SECONDS are left out: the sequencer orders those by size, which is as good at that length.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "..");
const FILE = path.join(ROOT, "infra/test-durations.json");
const MIN_SECONDS = 5;

interface JestReport {
  testResults: { name: string; startTime: number; endTime: number }[];
}

function main(reports: string[]): void {
  if (reports.length === 0) throw new Error("usage: pnpm test:durations <jest --json report>…");
  const previous = JSON.parse(readFileSync(FILE, "utf8")) as Record<string, number>;
  const durations = new Map(Object.entries(previous).filter(([file]) => existsSync(path.join(ROOT, file))));
  for (const report of reports) {
    const { testResults } = JSON.parse(readFileSync(report, "utf8")) as JestReport;
    for (const result of testResults) {
      const file = path.relative(ROOT, result.name).split(path.sep).join("/");
      durations.set(file, Math.round((result.endTime - result.startTime) / 1_000));
    }
  }
  const kept = [...durations].filter(([, seconds]) => seconds >= MIN_SECONDS).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  writeFileSync(FILE, `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`);
  console.log(`${path.relative(ROOT, FILE)}: ${kept.length} files of ${MIN_SECONDS} s or more, from ${reports.join(", ")}`);
}

main(process.argv.slice(2));
