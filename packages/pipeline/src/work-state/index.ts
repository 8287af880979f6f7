// Work-item state has one owner: every write to work_items and work_attempts is one of the
// transitions in this folder, each one statement (or one statement plus the stage's own
// writes in its transaction). Nothing else in the code base writes those tables.
export * from "./create-items";
export * from "./claim-item";
export * from "./finish-item";
export * from "./fail-item";
export * from "./hand-back";
export * from "./abandon-running";
export * from "./requeue-item";
export * from "./window-items";
export * from "./checkpoints";
export * from "./direct-stages";
export * from "./turn-groups";
export * from "./group-finish";
export * from "./model-calls";
export * from "./pipeline-records";
export * from "./compact-records";
