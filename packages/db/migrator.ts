// `@recall/db/migrator`: the migration runner on its own, without the Prisma client (the supervisor and the
// readiness check load it; importing `@recall/db` would load the generated client too).
export * from "./src/migrator";
