// What the idempotency table keeps must not be a second copy of secrets: some first answers carry a
// key shown once (POST /contexts, POST …/keys). So the table stores only a digest of the client's
// Idempotency-Key, and the answer sealed (AES-256-GCM) with a key derived from the Idempotency-Key
// itself: a database dump alone can neither find nor read a kept answer.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

export interface Sealed {
  iv: string;
  tag: string;
  data: string;
}

const derive = (purpose: string, scope: string, key: string) =>
  createHash("sha256").update(`recall-idempotency\0${purpose}\0${scope}\0${key}`).digest();

/** The lookup column: a digest, never the key the client sent. */
export function keyDigest(scope: string, key: string): string {
  return derive("lookup", scope, key).toString("hex");
}

export function seal(scope: string, key: string, value: unknown): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", derive("seal", scope, key), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(value ?? null), "utf8"), cipher.final()]);
  return { iv: iv.toString("base64"), tag: cipher.getAuthTag().toString("base64"), data: data.toString("base64") };
}

export function unseal(scope: string, key: string, sealed: Sealed): unknown {
  const decipher = createDecipheriv("aes-256-gcm", derive("seal", scope, key), Buffer.from(sealed.iv, "base64"));
  decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
  const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64")), decipher.final()]);
  return JSON.parse(plain.toString("utf8"));
}
