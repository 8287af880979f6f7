// The bytes a document arrived as, kept beside its extracted text: in Postgres
// (documents.original) or, when a blob directory is configured, as one file per sha256
// there, so large PDFs stay out of the database. Content-addressed, so the same bytes are
// written once and a file written before a transaction that then fails is harmless.
import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

export interface StoredOriginal {
  original?: Uint8Array<ArrayBuffer>;
  blobPath?: string;
}

export function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export async function storeOriginal(blobDir: string | undefined, hash: string, bytes: Buffer): Promise<StoredOriginal> {
  if (!blobDir) return { original: new Uint8Array(bytes) };
  const blobPath = join(hash.slice(0, 2), hash);
  const file = join(blobDir, blobPath);
  if (!(await exists(file))) {
    await mkdir(dirname(file), { recursive: true });
    const partial = `${file}.${randomUUID()}.part`;
    await writeFile(partial, bytes);
    await rename(partial, file);
  }
  return { blobPath };
}

export async function readOriginal(
  blobDir: string | undefined,
  doc: { original: Uint8Array | null; blobPath: string | null },
): Promise<Buffer | undefined> {
  if (doc.original) return Buffer.from(doc.original);
  if (!doc.blobPath) return undefined;
  if (!blobDir) throw new Error(`document original is in the blob directory (${doc.blobPath}), but RECALL_BLOB_DIR is not set`);
  return readFile(join(blobDir, doc.blobPath));
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** Deletes a blob file (an erased document's original); a file already gone is fine. */
export async function removeOriginal(blobDir: string, blobPath: string): Promise<boolean> {
  return unlink(join(blobDir, blobPath)).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return false;
      throw err;
    },
  );
}
