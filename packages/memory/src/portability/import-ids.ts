// The ids an import writes (issue 42). Derived from the exported id by a function, not a table, so references rewrite
// the same way wherever they point (forward too), memory keeps no map, and a re-run (or the rest of a run that failed
// part-way) writes the same ids and creates nothing twice. The function is keyed by the import's own record
// (`context_imports`: one row per target and source context, kept across runs): its id is random and no route answers
// it, so nobody can predict the ids another context's import of a shared export will get and plant rows under them
// first (the ids were sha256(target:exported id), which any tenant could compute). Into the exported context itself
// an id is kept only when it names a row the context holds; any other id is derived like another export's, so an id of
// another context's row and an id of no row are treated alike and answer alike: an import is no existence oracle.
import { createHash } from "node:crypto";
import type { Tx } from "@recall/db";
import type { KindSpec } from "./export-format";
import { ownReferences } from "./import-references";

export interface ImportKey {
  sourceContextId: string;
  targetContextId: string;
  /** The id of the import's `context_imports` row. */
  secret: string;
}

/** The id an exported id derives to in the target context: a uuid (version 8) from the key and the id. */
export function remapper(key: ImportKey): (id: string) => string {
  return (id) => uuidV8(createHash("sha256").update(`${key.secret}:${key.sourceContextId}:${key.targetContextId}:${id}`).digest("hex"));
}

/** A version 8 uuid (RFC 9562: custom) from the first 128 bits of a hex digest. */
export function uuidV8(hex: string): string {
  const variant = (8 | (parseInt(hex[16]!, 16) & 3)).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The batch's rows with every id rewritten: kept when its own export names a row the context holds, else derived. */
export async function remapRows(
  tx: Tx,
  key: ImportKey,
  spec: KindSpec,
  rows: readonly Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  const derive = remapper(key);
  const own = key.sourceContextId === key.targetContextId;
  const kept = own ? await ownReferences(tx, key.targetContextId, spec, rows) : () => false;
  const map = (column: string, id: string) => (kept(column, id) ? id : derive(id));
  return rows.map((row) => {
    const out = { ...row };
    for (const column of spec.ids) {
      const v = out[column];
      if (typeof v === "string") out[column] = map(column, v);
    }
    for (const column of spec.idLists ?? []) {
      const v = out[column];
      if (Array.isArray(v)) out[column] = v.map((id: string) => map(column, id));
    }
    return out;
  });
}
