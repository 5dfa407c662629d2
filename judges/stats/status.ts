/**
 * The status every statistics result carries: `"ok"` when the estimate and its test are defined,
 * otherwise why they are not (the numbers concerned are then NaN, never a plausible value or ±∞).
 */

/**
 * Why a statistic is (un)defined:
 * - `ok` — defined;
 * - `too-few` — fewer observations than the statistic needs (e.g. Bland–Altman limits with n = 1);
 * - `constant-input` — a series has zero variance (correlations are undefined);
 * - `constant-differences` — all paired differences are equal (SD 0): paired t, p and d_z undefined;
 * - `all-zero-differences` — every paired difference is 0 (Wilcoxon: no signed ranks);
 * - `no-variation` — no disagreement is possible (e.g. Krippendorff's expected disagreement is 0,
 *   or Cohen's κ with chance agreement 1);
 * - `empty` — no observations at all.
 */
export type StatStatus = "ok" | "too-few" | "constant-input" | "constant-differences" | "all-zero-differences" | "no-variation" | "empty";
