// Webhook signatures: `Recall-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
// The timestamp is inside the signed text, so a receiver that checks it is recent refuses replays.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "Recall-Signature";
export const EVENT_ID_HEADER = "Recall-Event-Id";

/** A new signing secret: 32 random bytes, base64url, behind a prefix that says what it is. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

export function signatureHeader(secret: string, timestampSeconds: number, rawBody: string): string {
  return signedWith([secret], timestampSeconds, rawBody);
}

/**
 * The header signed by each secret in turn: `t=…,v1=<new>,v1=<old>` while a rotated-out secret's grace period lasts,
 * so a receiver still checking with the old one keeps accepting until it switches.
 */
export function signedWith(secrets: readonly string[], timestampSeconds: number, rawBody: string): string {
  const signatures = secrets.map((secret) => `v1=${createHmac("sha256", secret).update(`${timestampSeconds}.${rawBody}`).digest("hex")}`);
  return [`t=${timestampSeconds}`, ...signatures].join(",");
}

/**
 * What a receiver does (docs/webhooks.md shows it in TypeScript and Python): recompute the HMAC over
 * the raw body and compare in constant time; refuse a timestamp further than `toleranceSeconds` from now.
 */
export function verifySignature(
  secret: string,
  header: string,
  rawBody: string,
  options: { nowSeconds?: number; toleranceSeconds?: number } = {},
): boolean {
  const parts = new Map<string, string[]>();
  for (const item of header.split(",")) {
    const [key, value] = item.split("=", 2);
    if (key && value) parts.set(key.trim(), [...(parts.get(key.trim()) ?? []), value.trim()]);
  }
  const t = Number(parts.get("t")?.[0]);
  if (!Number.isInteger(t)) return false;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1_000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signatureHeader(secret, t, rawBody).split("v1=")[1]!, "hex");
  return (parts.get("v1") ?? []).some((v) => {
    const given = Buffer.from(v, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
