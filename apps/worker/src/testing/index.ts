// What other packages' tests use of the worker: the marker model (a fake provider whose answers name their input),
// worker processes started and killed as children, and the stage killer of the crash test.
export * from "./marker-model";
export * from "./worker-fleet";
export * from "./stage-killer";
