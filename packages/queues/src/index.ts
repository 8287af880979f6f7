export * from "./registry";
export * from "./errors";
export * from "./connection";
export * from "./producer";
export * from "./work-items";
export * from "./worker-factory";
export * from "./outbox-relay";
export * from "./retry";
