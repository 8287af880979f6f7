// Review before commit (docs/review.md): list a context's held candidates, approve (optionally edited) or reject
// them one at a time or by filter. A decision is one transaction; an approval's commit work item is created in it
// and queued after it commits (the sweeper queues it if Redis does not take it), so nothing approved is lost.
import { DomainError, notFound } from "@recall/contracts";
import {
  commitApprovedReviews,
  decideReviews,
  listReviews,
  pendingReviewIds,
  readReview,
  type DecisionOutcome,
  type ListPosition,
  type ReviewCommitRef,
  type ReviewFilter,
  type ReviewView,
} from "@recall/memory";
import { transaction, type Tx, type WorkItem } from "@recall/db";
import { enqueueOrLeaveForSweeper, ensureWorkItem } from "@recall/pipeline";
import { currentTraceId, newTraceId } from "@recall/telemetry";
import type { ServiceDeps } from "./service-deps";

/** Reviews one bulk decision takes at most; `remaining` says how many more match. */
export const REVIEW_BULK_MAX = 500;

export type ReviewAction = "approve" | "reject";

export interface BulkDecision {
  reviewIds?: string[];
  filter?: Omit<ReviewFilter, "contextId" | "status">;
  limit: number;
  note?: string;
}

export interface BulkOutcome extends Omit<DecisionOutcome, "commits" | "missing"> {
  /** Pending reviews still matching the filter after this call (0 for a list of ids). */
  remaining: number;
}

export class ReviewService {
  constructor(private readonly deps: ServiceDeps) {}

  list(contextId: string, filter: Omit<ReviewFilter, "contextId">, page: { after?: ListPosition; limit: number }) {
    return listReviews(this.deps.db, { ...filter, contextId }, page);
  }

  async get(contextId: string, reviewId: string): Promise<ReviewView> {
    const review = await readReview(this.deps.db, contextId, reviewId);
    if (!review) throw notFound("review");
    return review;
  }

  /** One review: 404 when it is not this context's, 409 when its state refuses the decision. */
  async decide(
    contextId: string,
    reviewId: string,
    action: ReviewAction,
    options: { edit?: Record<string, string | null>; note?: string } = {},
  ): Promise<ReviewView> {
    const outcome = await this.run({ contextId, reviewIds: [reviewId], action, ...options });
    if (outcome.missing.length > 0) throw notFound("review");
    const refused = outcome.refused[0];
    if (refused) {
      const again = options.edit && (refused.status === "approved" || refused.status === "committed");
      const why = again
        ? "an edit is taken only with the approval that commits it"
        : `it cannot be ${action === "approve" ? "approved" : "rejected"}`;
      throw new DomainError("conflict", `the review is ${refused.status}; ${why}`);
    }
    return this.get(contextId, reviewId);
  }

  /** Many reviews, named or matched by a filter (pending ones, oldest first). Named ids not of this context: 404, nothing decided. */
  async decideMany(contextId: string, action: ReviewAction, bulk: BulkDecision): Promise<BulkOutcome> {
    const picked = bulk.reviewIds
      ? { ids: bulk.reviewIds, matching: bulk.reviewIds.length }
      : await pendingReviewIds(this.deps.db, { ...bulk.filter, contextId }, bulk.limit);
    const outcome = await this.run({ contextId, reviewIds: picked.ids, action, note: bulk.note });
    if (outcome.missing.length > 0) {
      throw new DomainError("not_found", `body.review_ids: ${outcome.missing.length} of them are not reviews of this context`, {
        fields: [{ field: "body.review_ids", message: `not reviews of this context: ${outcome.missing.slice(0, 5).join(", ")}` }],
      });
    }
    const { decided, unchanged, refused } = outcome;
    return { decided, unchanged, refused, remaining: bulk.reviewIds ? 0 : Math.max(0, picked.matching - picked.ids.length) };
  }

  /**
   * Approved reviews an import brought without their commit: each input's is opened and queued, as at approval,
   * REVIEW_BULK_MAX reviews a transaction however many the import brought.
   */
  async commitApproved(contextId: string): Promise<number> {
    let committed = 0;
    for (;;) {
      const page = await this.withCommits((tx, openCommit) => commitApprovedReviews(tx, contextId, REVIEW_BULK_MAX, openCommit));
      committed += page.reviews;
      if (page.reviews < REVIEW_BULK_MAX) return committed;
    }
  }

  private async run(decision: Parameters<typeof decideReviews>[1]): Promise<DecisionOutcome> {
    return this.withCommits((tx, openCommit) => decideReviews(tx, decision, openCommit));
  }

  /** One transaction whose review commits get a commit_artifacts work item each, queued once it has committed. */
  private async withCommits<T>(work: (tx: Tx, openCommit: (tx: Tx, commit: ReviewCommitRef) => Promise<void>) => Promise<T>): Promise<T> {
    const traceId = currentTraceId() ?? newTraceId();
    const items: WorkItem[] = [];
    const openCommit = async (tx: Tx, commit: ReviewCommitRef) => {
      items.push(
        await ensureWorkItem(tx, {
          contextId: commit.contextId,
          queue: "commit_artifacts",
          subjectType: "review",
          subjectId: commit.id,
          traceId,
        }),
      );
    };
    const result = await transaction(this.deps.db, (tx) => work(tx, openCommit), { timeoutMs: 30_000 });
    for (const item of items) await enqueueOrLeaveForSweeper(this.deps, item);
    return result;
  }
}
