// "@recall/heuristics/time": reading time phrases alone, for a process that does not run the rules (the API's and the
// workers' main threads read a query's dates). It loads chrono's English parsers, not compromise, which the package's
// root loads for the rules (over a second of CPU in each process and each test file that imports it).
export { findTemporalPhrases, validityFor, type TemporalPhrase, type Validity, type FactAspect } from "./temporal-resolver";
