#!/usr/bin/env node
// `npm start` and `npm test` on a machine with only Node and npm, and the same scripts under pnpm.
// package.json runs `node scripts/bootstrap.mjs <script>` for start and test, where <script> names
// the script holding the real command (start:service, test:suite).
// - Under pnpm (contributors' `pnpm start`, `pnpm test`): runs that command, nothing else.
// - Under npm (or run directly): finds pnpm at the version packageManager pins (on PATH, or a copy
//   npm installed earlier into .data/tools, or installs that copy now from the npm registry),
//   runs `pnpm install --frozen-lockfile` when node_modules is missing or was installed from
//   another lockfile (a hash stamp), then runs the command as pnpm would (node_modules/.bin on PATH).
// The command replaces its shell (`exec`), so a signal this process passes on reaches it, and a
// parent that dies (npm's shell does on SIGTERM, without passing it on) takes it down too.
// Corepack is not used: Node 20's corepack cannot verify the signatures of pnpm 12's registry
// metadata ("No compatible signature found"), so it fails where npm itself succeeds.
// No dependencies: this runs before anything is installed.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const PNPM_VERSION = manifest.packageManager.replace(/^pnpm@/, "").split("+")[0];
const TOOL_DIR = path.join(root, ".data", "tools", `pnpm-${PNPM_VERSION}`);
const STAMP = path.join(root, "node_modules", ".recall-install-stamp");
const WINDOWS = process.platform === "win32";

const [script, ...args] = process.argv.slice(2);
const command = manifest.scripts?.[script];
if (!command) fail(`usage: node scripts/bootstrap.mjs <script> [args…]; "${script ?? ""}" is not a script in package.json`);

if ((process.env.npm_config_user_agent ?? "").startsWith("pnpm/")) {
  run(command, args, process.env);
} else {
  const pnpm = pnpmOnPath() ?? pnpmInTools() ?? installPnpm();
  ensureDependencies(pnpm);
  const bin = path.join(root, "node_modules", ".bin");
  const PATH = [bin, process.env.PATH ?? ""].join(path.delimiter);
  run(command, args, { ...withoutNpmLifecycle(process.env), PATH });
}

/** The pnpm on PATH, when it is the pinned version. */
function pnpmOnPath() {
  // A corepack shim would try to download here; it must not prompt.
  const probe = spawnSync("pnpm", ["--version"], {
    cwd: root,
    encoding: "utf8",
    shell: WINDOWS,
    timeout: 60_000,
    env: { ...withoutNpmLifecycle(process.env), COREPACK_ENABLE_DOWNLOAD_PROMPT: "0" },
  });
  return probe.status === 0 && probe.stdout.trim() === PNPM_VERSION ? "pnpm" : undefined;
}

function pnpmInTools() {
  const bin = path.join(TOOL_DIR, "node_modules", ".bin", WINDOWS ? "pnpm.cmd" : "pnpm");
  return existsSync(bin) ? bin : undefined;
}

function installPnpm() {
  console.log(`pnpm ${PNPM_VERSION} is not on PATH; installing it with npm into ${path.relative(root, TOOL_DIR)}`);
  mkdirSync(TOOL_DIR, { recursive: true });
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ["npm"];
  const flags = ["install", "--prefix", TOOL_DIR, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", `pnpm@${PNPM_VERSION}`];
  const installed = spawnSync(npm[0], [...npm.slice(1), ...flags], {
    stdio: "inherit",
    shell: WINDOWS && npm.length === 1,
    env: withoutNpmLifecycle(process.env),
  });
  const bin = installed.status === 0 ? pnpmInTools() : undefined;
  if (!bin) fail(`could not install pnpm ${PNPM_VERSION} with npm; install it yourself: npm install -g pnpm@${PNPM_VERSION}`);
  return bin;
}

/** pnpm install when node_modules is absent or was installed from another lockfile. */
function ensureDependencies(pnpm) {
  const wanted = installHash();
  if (existsSync(STAMP) && readFileSync(STAMP, "utf8").trim() === wanted) return;
  console.log(existsSync(path.join(root, "node_modules")) ? "the lockfile changed; installing" : "installing dependencies");
  const installed = spawnSync(pnpm, ["install", "--frozen-lockfile"], {
    cwd: root,
    stdio: "inherit",
    shell: WINDOWS,
    env: withoutNpmLifecycle(process.env),
  });
  if (installed.status !== 0) fail("pnpm install --frozen-lockfile failed (see above)");
  writeFileSync(STAMP, `${wanted}\n`);
}

/** What an install depends on: the lockfile, the workspace settings, pnpm's and Node's versions. */
function installHash() {
  const hash = createHash("sha256");
  for (const file of ["pnpm-lock.yaml", "pnpm-workspace.yaml"]) hash.update(readFileSync(path.join(root, file)));
  hash.update(`pnpm ${PNPM_VERSION} node ${process.versions.node.split(".")[0]}`);
  return hash.digest("hex");
}

/** npm's own script variables would make pnpm think it runs under npm, or read npm's config. */
function withoutNpmLifecycle(env) {
  const NPM_OWN =
    /^npm_(config_user_agent|lifecycle_|package_|execpath|node_execpath|command$|config_(globalconfig|userconfig|prefix|global_prefix|local_prefix|cache|init_module|node_gyp|npm_version|noproxy)$)/;
  return Object.fromEntries(Object.entries(env).filter(([name]) => !NPM_OWN.test(name)));
}

/** Runs the command in place of its shell; signals sent to this process reach it once, and its exit code becomes ours. */
function run(cmd, cmdArgs, env) {
  const line = [WINDOWS ? cmd : `exec ${cmd}`, ...cmdArgs.map(quote)].join(" ");
  const child = spawn(line, { cwd: process.cwd(), stdio: "inherit", shell: true, env });
  // Ctrl-C reaches the whole foreground process group, the command included, so SIGINT is not passed on again
  // (a second one would cut its graceful shutdown short); SIGTERM and SIGHUP are sent to one process.
  process.on("SIGINT", () => {});
  for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  const parent = process.ppid;
  const orphaned = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphaned);
    child.kill("SIGTERM");
  }, 1_000);
  orphaned.unref();
  child.on("error", (err) => fail(`could not run ${cmd}: ${err.message}`));
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 1)));
}

function quote(arg) {
  if (WINDOWS) return /[\s"]/.test(arg) ? `"${arg.replaceAll('"', '\\"')}"` : arg;
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

function fail(message) {
  console.error(message);
  process.exit(1);
}
