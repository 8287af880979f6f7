// pnpm client:generate: rewrites packages/client/src/generated/openapi.ts from the route declarations.
// With --check it writes nothing and exits 1 when the checked-in file differs (CI, via client-types.test.ts).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CLIENT_TYPES_FILE, REGENERATE_COMMAND, generateClientTypes } from "./client-types";

async function main(check: boolean): Promise<number> {
  const fresh = await generateClientTypes();
  const previous = readIfPresent(CLIENT_TYPES_FILE);
  const relative = path.relative(path.resolve(__dirname, ".."), CLIENT_TYPES_FILE);
  if (previous === fresh) {
    console.log(`${relative} is up to date`);
    return 0;
  }
  if (check) {
    console.error(`routes changed without regenerating the client: run \`${REGENERATE_COMMAND}\` and commit ${relative}`);
    console.error(firstDifference(previous ?? "", fresh));
    return 1;
  }
  mkdirSync(path.dirname(CLIENT_TYPES_FILE), { recursive: true });
  writeFileSync(CLIENT_TYPES_FILE, fresh);
  console.log(`wrote ${relative}`);
  return 0;
}

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function firstDifference(before: string, after: string): string {
  const a = before.split("\n");
  const b = after.split("\n");
  const at = a.findIndex((text, i) => text !== b[i]);
  const line = at === -1 ? a.length : at;
  return `first difference at line ${line + 1}:\n  checked in: ${a[line] ?? "(end of file)"}\n  generated:  ${b[line] ?? "(end of file)"}`;
}

main(process.argv.includes("--check")).then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
