// Named request and answer types, read from the generated OpenAPI types, so the hand-written
// surface changes type with the routes (and fails to compile when a route it uses changes shape).
import type { paths } from "./generated/openapi.js";

type Method = "get" | "post" | "delete";
type Operation<P extends keyof paths, M extends Method> = paths[P][M];
type Json<C> = C extends { content: { "application/json": infer T } } ? T : never;

/** The JSON body of the operation's 2xx answers. */
export type ResponseOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer R } ? Json<R[Extract<keyof R, 200 | 201 | 202>]> : never;
/** The operation's JSON request body. */
export type BodyOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
/** The operation's query parameters. */
export type QueryOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** A reader's or writer's scope: `{ org: "acme", user: "alice" }` or `["org=acme", "user=alice"]`. */
export type Scope = Record<string, string> | string[];
/** Paging of every list: `next_cursor` of the previous page, and a page size. */
export interface Page {
  limit?: number;
  cursor?: string;
}

type Ctx = "/api/v1/{contextId}";
export type SessionCreated = ResponseOf<`${Ctx}/sessions`, "post">;
export type TurnInput = BodyOf<`${Ctx}/sessions/{sessionId}/turns`, "post">;
/** An image, file or link shared with a turn: its caption and alt text are remembered like the content; a URL is never fetched. */
export type Attachment = NonNullable<TurnInput["attachments"]>[number];
export type TurnResult = ResponseOf<`${Ctx}/sessions/{sessionId}/turns`, "post">;
export type TurnPage = ResponseOf<`${Ctx}/sessions/{sessionId}/turns`, "get">;
export type Turn = ResponseOf<`${Ctx}/sessions/{sessionId}/turns/{turnId}`, "get">;
export type Profile = ResponseOf<`${Ctx}/profile`, "get">;
export type StateInput = BodyOf<`${Ctx}/state`, "post">;
export type State = ResponseOf<`${Ctx}/state`, "post">;
export type QueryInput = BodyOf<`${Ctx}/query`, "post">;
export type QueryResult = ResponseOf<`${Ctx}/query`, "post">;
export type ContextPackInput = BodyOf<`${Ctx}/context`, "post">;
export type ContextPack = ResponseOf<`${Ctx}/context`, "post">;
export type FactWriteInput = BodyOf<`${Ctx}/facts`, "post">;
export type FactWriteResult = ResponseOf<`${Ctx}/facts`, "post">;
export type Provenance = ResponseOf<`${Ctx}/facts/{factId}/provenance`, "get">;
export type EntityHistory = ResponseOf<`${Ctx}/entities/{entityId}/history`, "get">;
export type DocumentInput = BodyOf<`${Ctx}/documents`, "post">;
export type DocumentAccepted = ResponseOf<`${Ctx}/documents`, "post">;
export type DocumentStatus = ResponseOf<`${Ctx}/documents/{documentId}/status`, "get">;
export type DocumentText = ResponseOf<`${Ctx}/documents/{documentId}/text`, "get">;
export type Retraction = ResponseOf<`${Ctx}/turns/{turnId}/retract`, "post">;
export type ErasureInput = BodyOf<`${Ctx}/erasures`, "post">;
export type Erasure = ResponseOf<`${Ctx}/erasures`, "post">;
export type WorkItemQuery = QueryOf<`${Ctx}/work-items`, "get">;
export type WorkItemPage = ResponseOf<`${Ctx}/work-items`, "get">;
export type UsageQuery = QueryOf<`${Ctx}/usage`, "get">;
export type Usage = ResponseOf<`${Ctx}/usage`, "get">;
export type ExportQuery = QueryOf<`${Ctx}/export`, "get">;
export type ImportResult = ResponseOf<`${Ctx}/import`, "post">;
export type AdminUsageQuery = QueryOf<"/api/v1/admin/usage", "get">;
export type WorkItem = ResponseOf<`${Ctx}/work-items/{workItemId}/retry`, "post">;
export type ContextInput = BodyOf<"/api/v1/contexts", "post">;
export type ContextCreated = ResponseOf<"/api/v1/contexts", "post">;
export type KeyPage = ResponseOf<"/api/v1/contexts/{contextId}/keys", "get">;
export type IssuedKey = ResponseOf<"/api/v1/contexts/{contextId}/keys", "post">;
export type RotatedKey = ResponseOf<"/api/v1/contexts/{contextId}/keys/{keyId}/rotate", "post">;
export type RevokedKey = ResponseOf<"/api/v1/contexts/{contextId}/keys/{keyId}", "delete">;
export type WebhookInput = BodyOf<`${Ctx}/webhooks`, "post">;
export type WebhookCreated = ResponseOf<`${Ctx}/webhooks`, "post">;
export type WebhookList = ResponseOf<`${Ctx}/webhooks`, "get">;
export type Webhook = ResponseOf<`${Ctx}/webhooks/{webhookId}`, "get">;
export type WebhookDeliveryPage = ResponseOf<`${Ctx}/webhooks/{webhookId}/deliveries`, "get">;
export type WebhookDelivery = ResponseOf<`${Ctx}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver`, "post">;
export type ReviewQuery = QueryOf<`${Ctx}/reviews`, "get">;
export type ReviewPage = ResponseOf<`${Ctx}/reviews`, "get">;
export type Review = ResponseOf<`${Ctx}/reviews/{reviewId}`, "get">;
export type ReviewApproval = BodyOf<`${Ctx}/reviews/{reviewId}/approve`, "post">;
export type ReviewRejection = BodyOf<`${Ctx}/reviews/{reviewId}/reject`, "post">;
export type ReviewBulkInput = BodyOf<`${Ctx}/reviews/bulk-approve`, "post">;
export type ReviewBulkResult = ResponseOf<`${Ctx}/reviews/bulk-approve`, "post">;
