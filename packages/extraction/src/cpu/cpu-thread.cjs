// Entry of a CPU pool thread. The project runs TypeScript without a build step (tsx); a thread
// started from a process that has no TypeScript loader of its own (Jest, plain node) registers
// tsx's here, then loads the tasks.
"use strict";
if (!require.extensions[".ts"]) require("tsx/cjs/api").register();
module.exports = require("./cpu-tasks.ts");
