// Erasure (docs/erasure.md): the text of some inputs, or of a whole context, deleted for good with a receipt.
// The service checks the request against the context and maps what memory reports to domain errors.
import { eraseContext, eraseInputs, readErasure, UnknownErasureInputs, type EraseRequest, type ErasureReceipt } from "@recall/memory";
import { DomainError, notFoundError } from "./domain-error";
import type { ServiceDeps } from "./service-deps";

export class ErasureService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "db">,
    private readonly options: { blobDir?: string },
  ) {}

  /** Throws not_found naming every asked-for id that is not this context's (nothing is erased then). */
  async erase(request: EraseRequest): Promise<ErasureReceipt> {
    try {
      return await eraseInputs(this.deps.db, request, { blobDir: this.options.blobDir });
    } catch (err) {
      if (!(err instanceof UnknownErasureInputs)) throw err;
      const fields = err.unknown.map((u) => ({ field: `body.${u.field}`, message: `${u.id} is not in this context` }));
      throw new DomainError("not_found", `nothing erased: ${err.message}`, { fields });
    }
  }

  async get(contextId: string, erasureId: string): Promise<ErasureReceipt> {
    const receipt = await readErasure(this.deps.db, contextId, erasureId);
    if (!receipt) throw notFoundError("erasure");
    return receipt;
  }

  async eraseContext(contextId: string): Promise<ErasureReceipt> {
    const receipt = await eraseContext(this.deps.db, contextId, { blobDir: this.options.blobDir });
    if (!receipt) throw notFoundError("context");
    return receipt;
  }
}
