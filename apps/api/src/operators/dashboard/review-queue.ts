// The dashboard's review queue (review before commit, docs/review.md): held candidates across every context (or
// one), oldest first, each with its context's name. Decisions go through ReviewService, as the API's routes do.
import { listReviewsForAdmin, type AdminReviewFilter, type ListPosition } from "@recall/memory";
import type { Db } from "@recall/db";
import { encodeCursor } from "../../http/pagination";
import { reviewView } from "../../routes/reviews.routes";
import { contextNames } from "./run-explorer";

export async function reviewQueue(db: Db, filter: AdminReviewFilter, page: { after?: ListPosition; limit: number }) {
  const found = await listReviewsForAdmin(db, filter, page);
  const names = await contextNames(
    db,
    found.items.map((r) => r.context_id),
  );
  return {
    reviews: found.items.map((r) => ({ ...reviewView(r), context_id: r.context_id, context_name: names.get(r.context_id) ?? null })),
    next_cursor: encodeCursor(found.next),
  };
}
