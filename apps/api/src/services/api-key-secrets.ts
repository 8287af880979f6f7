// API keys: `rk_<prefix>_<secret>`. Only a scrypt hash of the whole key is stored;
// the prefix finds the row, the hash is compared in constant time.
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;
const KEY_LENGTH = 32;

export interface IssuedKey {
  key: string;
  prefix: string;
  hash: string;
}

export async function issueApiKey(): Promise<IssuedKey> {
  const prefix = randomBytes(6).toString("hex");
  const key = `rk_${prefix}_${randomBytes(24).toString("base64url")}`;
  return { key, prefix, hash: await hashKey(key) };
}

export async function hashKey(key: string): Promise<string> {
  const salt = randomBytes(16);
  const derived = await scrypt(key, salt, KEY_LENGTH);
  return `scrypt$${salt.toString("base64")}$${derived.toString("base64")}`;
}

export async function verifyKey(key: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const derived = await scrypt(key, Buffer.from(salt, "base64"), expected.length);
  return timingSafeEqual(derived, expected);
}

export function prefixOf(key: string): string | undefined {
  return /^rk_([0-9a-f]{12})_[A-Za-z0-9_-]+$/.exec(key)?.[1];
}

/** Constant-time comparison of two secrets of any length. */
export function secretsEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
