import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readOriginal, sha256, storeOriginal } from "./document-originals";

const bytes = Buffer.from("%PDF-1.4 not really");
const hash = sha256(bytes);

test("without a blob directory the original goes to Postgres (documents.original)", async () => {
  const stored = await storeOriginal(undefined, hash, bytes);
  expect(stored.blobPath).toBeUndefined();
  expect(await readOriginal(undefined, { original: stored.original!, blobPath: null })).toEqual(bytes);
});

test("with one, it is a file named by its sha256, written once and read back", async () => {
  const dir = mkdtempSync(join(tmpdir(), "recall-originals-"));
  try {
    const first = await storeOriginal(dir, hash, bytes);
    const second = await storeOriginal(dir, hash, bytes);
    expect(first).toEqual({ blobPath: join(hash.slice(0, 2), hash) });
    expect(second).toEqual(first);
    expect(readFileSync(join(dir, first.blobPath!))).toEqual(bytes);
    expect(await readOriginal(dir, { original: null, blobPath: first.blobPath! })).toEqual(bytes);
    await expect(readOriginal(undefined, { original: null, blobPath: first.blobPath! })).rejects.toThrow(/RECALL_BLOB_DIR/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
