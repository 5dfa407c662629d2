/**
 * Statistics for medsynth: descriptives and CIs, paired tests, effect sizes, correlations,
 * agreement (Bland–Altman, Krippendorff's alpha, ICC) and multiple-testing correction.
 * Pure functions on plain number arrays; each names the reference implementation it reproduces.
 */
export * from "./distributions.ts";
export * from "./descriptive.ts";
export * from "./bootstrap.ts";
export * from "./ranks.ts";
export * from "./paired-tests.ts";
export * from "./paired-diff.ts";
export * from "./correlation.ts";
export * from "./bland-altman.ts";
export * from "./multiple-testing.ts";
export * from "./krippendorff.ts";
export * from "./icc.ts";
export * from "./kappa.ts";
export * from "./status.ts";
export * from "./proportions.ts";
export * from "./ordinal-agreement.ts";
export * from "./linear-regression.ts";
