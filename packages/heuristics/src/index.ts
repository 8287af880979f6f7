export { runHeuristics, type HeuristicOptions } from "./run-heuristics";
export { findKnownEntities, type EntityMention } from "./speakers/known-entity-matcher";
export { findTemporalPhrases, validityFor, type TemporalPhrase, type Validity, type FactAspect } from "./time/temporal-resolver";
export { phaticVerdict, type PhaticVerdict } from "./small-talk-gate";
export { splitSentences, type Sentence } from "./text/sentence-splitter";
export { HeuristicStage } from "./heuristic-stage";
