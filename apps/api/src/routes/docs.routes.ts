// GET /docs: the API reference, rendered in the browser from /openapi.json by Swagger UI. Its
// files come from the swagger-ui-dist package and are served here, so the page loads nothing
// from another host (its Content-Security-Policy says so to the browser too).
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { defineRoute, type RouteDefinition } from "../http/route-definition";

export const DOCS_PATH = "/docs";

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes from its scripts, and draws icons as data: SVGs.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Recall API reference</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}/init.js"></script>
  </body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an outside validator for a badge.
const INIT = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
`;

interface Asset {
  file: string;
  contentType: string;
  /** Read on first request, then kept: the bundle is 1.7 MB and most processes never serve it. */
  text?: string;
}

const ASSETS: Asset[] = [
  { file: "swagger-ui.css", contentType: "text/css; charset=utf-8" },
  { file: "swagger-ui-bundle.js", contentType: "text/javascript; charset=utf-8" },
  { file: "init.js", contentType: "text/javascript; charset=utf-8", text: INIT },
];

const packageDir = () => path.dirname(require.resolve("swagger-ui-dist/package.json"));

export function docsRoutes(): RouteDefinition[] {
  return [page(), ...ASSETS.map(asset)];
}

function page(): RouteDefinition {
  return defineRoute({
    method: "get",
    path: DOCS_PATH,
    summary: "This API's reference page",
    description:
      "An HTML page rendering /openapi.json with Swagger UI. Every script and style it loads is served by this API " +
      "(from the swagger-ui-dist package); nothing comes from another host.",
    tags: ["meta"],
    responses: { 200: { description: "The page", schema: z.string(), contentType: "text/html" } },
    handle: async ({ res }) => {
      res.set({ "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache" });
      return { status: 200, body: PAGE, contentType: "text/html; charset=utf-8" };
    },
  });
}

function asset(spec: Asset): RouteDefinition {
  return defineRoute({
    method: "get",
    path: `${DOCS_PATH}/${spec.file}`,
    summary: `The reference page's ${spec.file}`,
    description: "A static file of the /docs page.",
    tags: ["meta"],
    unlisted: true,
    responses: { 200: { description: spec.file, schema: z.string(), contentType: spec.contentType } },
    handle: async ({ res }) => {
      spec.text ??= readFileSync(path.join(packageDir(), spec.file), "utf8");
      // Revalidated by ETag (Express answers 304 when unchanged), so an upgraded package is picked up at once.
      res.set({ "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache" });
      return { status: 200, body: spec.text, contentType: spec.contentType };
    },
  });
}
