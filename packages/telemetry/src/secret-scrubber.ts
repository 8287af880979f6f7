// Secrets never reach a log line or a stored error message: known values (the admin key and
// provider keys from the environment) and anything shaped like a credential (Recall API keys,
// OpenAI and Anthropic keys, bearer tokens) are replaced before text leaves the process.
const SHAPES = [/\brk_[0-9a-f]{12}_[A-Za-z0-9_-]+/g, /\bsk-(?:ant-)?[A-Za-z0-9_-]{8,}/g, /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi];
export const REDACTED = "[redacted]";
/** Shorter values would blank out ordinary words. */
const MIN_SECRET_LENGTH = 6;

export function scrubSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= MIN_SECRET_LENGTH) out = out.replaceAll(secret, REDACTED);
  // Only the bearer shape has a group (the scheme, kept); for the others the second argument is an offset.
  for (const shape of SHAPES)
    out = out.replace(shape, (_match, scheme: unknown) => (typeof scheme === "string" ? `${scheme} ${REDACTED}` : REDACTED));
  return out;
}

/** Strings anywhere in a log call's arguments; errors become plain objects so their message and stack are scrubbed too. */
export function scrubValue(value: unknown, secrets: readonly (string | undefined)[], depth = 0): unknown {
  if (typeof value === "string") return scrubSecrets(value, secrets);
  if (value === null || typeof value !== "object" || depth > 8) return value;
  if (value instanceof Error)
    return { type: value.name, message: scrubSecrets(value.message, secrets), stack: scrubSecrets(value.stack ?? "", secrets) };
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, secrets, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(v, secrets, depth + 1)]));
}
