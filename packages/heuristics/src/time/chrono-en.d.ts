// "chrono-node/en" is a subpath of the package's "exports", which this project's TypeScript resolution ("node") does
// not read: its types are those of the root's English parser.
declare module "chrono-node/en" {
  export { parse, casual, strict } from "chrono-node";
}
