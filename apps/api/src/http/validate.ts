// Requests are parsed by their route declarations (route-definition.ts); this is what is left.

/** The context id of a route mounted under /api/v1/:contextId (already checked against the API key). */
export function contextIdOf(req: { params: unknown }): string {
  return String((req.params as Record<string, string>).contextId);
}
