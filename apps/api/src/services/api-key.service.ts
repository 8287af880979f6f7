// Contexts (tenants) and their API keys. A context is created with its first key. Its keys are listed by prefix a page at a time, issued (shown once), rotated and
// revoked. Every lookup is by context and key id together, so a key id of another context is
// simply not found. Rotation and revocation are conditional updates, so two of them racing on
// one key never both succeed against an active key.
import { DomainError, notFound } from "@recall/contracts";
import type { ContextConfig } from "@recall/contracts";
import { toJson, type ApiKey, type Context, type Db } from "@recall/db";
import { issueApiKey } from "./api-key-secrets";

export interface KeyPosition {
  k: string | number;
  id: string;
}

export interface IssuedKeyRow {
  row: ApiKey;
  apiKey: string;
}

export class ApiKeyService {
  constructor(private readonly deps: { db: Db }) {}

  /** A new context with its first key, in one statement (a context never exists without a key). */
  async createContext(name: string, config: ContextConfig | undefined): Promise<{ context: Context; apiKey: string }> {
    const issued = await issueApiKey();
    const context = await this.deps.db.context.create({
      data: { name, config: toJson(config ?? {}), apiKeys: { create: { prefix: issued.prefix, hash: issued.hash } } },
    });
    return { context, apiKey: issued.key };
  }

  /**
   * Sets or removes (null) keys of a context's config, in one statement, so two changes at once both land (each
   * key as the later one said). The caller checked the keys against the config's schema.
   */
  async updateConfig(contextId: string, change: Record<string, unknown>): Promise<Context> {
    const entries = Object.entries(change);
    const set = Object.fromEntries(entries.filter(([, v]) => v !== null));
    const remove = entries.filter(([, v]) => v === null).map(([k]) => k);
    const [row] = await this.deps.db.$queryRaw<{ id: string }[]>`
      UPDATE contexts SET config = (config || ${JSON.stringify(set)}::jsonb) - ${remove}::text[]
      WHERE id = ${contextId}::uuid RETURNING id::text`;
    if (!row) throw notFound("context");
    return this.deps.db.context.findUniqueOrThrow({ where: { id: contextId } });
  }

  /** Oldest first; `limit + 1` rows, so the caller knows whether a next page exists. */
  async list(contextId: string, limit: number, after?: KeyPosition): Promise<ApiKey[]> {
    await this.requireContext(contextId);
    const at = after && new Date(String(after.k));
    return this.deps.db.apiKey.findMany({
      where: { contextId, ...(at && after ? { OR: [{ createdAt: { gt: at } }, { createdAt: at, id: { gt: after.id } }] } : {}) },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: limit + 1,
    });
  }

  async issue(contextId: string): Promise<IssuedKeyRow> {
    await this.requireContext(contextId);
    return this.issueFor(contextId);
  }

  /**
   * A new key replacing an active one, which is revoked unless `keepOld`. A revoked key is not
   * rotated (409): rotating it would hand out a fresh active key under a name the operator
   * already withdrew; issue one with POST …/keys instead.
   */
  async rotate(contextId: string, keyId: string, keepOld: boolean): Promise<{ issued: IssuedKeyRow; replaced: ApiKey }> {
    const old = await this.requireKey(contextId, keyId);
    if (old.revokedAt) throw revoked(keyId);
    if (!keepOld) {
      const { count } = await this.deps.db.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date() } });
      if (count === 0) throw revoked(keyId);
    }
    const issued = await this.issueFor(contextId);
    return { issued, replaced: keepOld ? old : await this.requireKey(contextId, keyId) };
  }

  /** Revoking twice is harmless: the second answers the key as it stands. */
  async revoke(contextId: string, keyId: string): Promise<ApiKey> {
    const key = await this.requireKey(contextId, keyId);
    if (key.revokedAt) return key;
    await this.deps.db.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date() } });
    return this.requireKey(contextId, keyId);
  }

  private async issueFor(contextId: string): Promise<IssuedKeyRow> {
    const issued = await issueApiKey();
    const row = await this.deps.db.apiKey.create({ data: { contextId, prefix: issued.prefix, hash: issued.hash } });
    return { row, apiKey: issued.key };
  }

  private async requireContext(contextId: string): Promise<void> {
    if (!(await this.deps.db.context.findUnique({ where: { id: contextId }, select: { id: true } }))) throw notFound("context");
  }

  private async requireKey(contextId: string, keyId: string): Promise<ApiKey> {
    const key = await this.deps.db.apiKey.findFirst({ where: { id: keyId, contextId } });
    if (!key) throw notFound("key");
    return key;
  }
}

function revoked(keyId: string): DomainError {
  return new DomainError("conflict", `key ${keyId} is revoked and cannot be rotated; issue a new key with POST …/keys`);
}
