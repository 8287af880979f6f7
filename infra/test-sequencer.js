// Jest's order on a checkout that has no timings of its own (a fresh clone, CI): the longest files first, from the
// seconds each took in an earlier run (infra/test-durations.json), so the two workers finish together instead of one
// starting a two-minute file as the other runs out of work. Where Jest has timings of this checkout (its cache), they
// win. Files in neither run after the known long ones, largest first. Refresh the list when a file grows much longer:
// `pnpm test:durations` writes it from Jest's --json reports (infra/test-durations.ts).
const Sequencer = require("@jest/test-sequencer").default;
const path = require("node:path");
const known = require("./test-durations.json");

const root = path.resolve(__dirname, "..");

class LongestFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) => {
      const cached = this.time(test);
      if (cached != null) return cached / 1000;
      return known[path.relative(root, test.path).split(path.sep).join("/")];
    };
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    for (const test of tests) test.duration = seconds(test);
    return tests.sort((a, b) => {
      if (this.hasFailed(a) !== this.hasFailed(b)) return this.hasFailed(a) ? -1 : 1;
      const [ta, tb] = [a.duration ?? -1, b.duration ?? -1];
      if (ta !== tb) return tb - ta;
      return size(b) - size(a);
    });
  }
}

module.exports = LongestFirst;
