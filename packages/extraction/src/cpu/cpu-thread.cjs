// Entry of a CPU pool thread. The project runs TypeScript without a build step (tsx); a thread
// started from a process that has no TypeScript loader of its own (Jest, plain node) registers
// tsx's here, then loads the tasks.
"use strict";
// The pool's `tasksModule` (CpuPoolOptions): the tasks compiled to JavaScript, which tests build once per run.
const given = require("node:worker_threads").workerData?.tasksModule;
// In the image (infra/build-image.mjs) the tasks are compiled JavaScript beside this file, and no loader is needed.
const compiled = require("node:path").join(__dirname, "cpu-tasks.js");
if (given) module.exports = require(given);
else if (require("node:fs").existsSync(compiled)) module.exports = require(compiled);
else {
  if (!require.extensions[".ts"]) require("tsx/cjs/api").register();
  module.exports = require("./cpu-tasks.ts");
}
