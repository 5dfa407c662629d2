/**
 * Natural order of identifiers: digit runs compare as numbers, so `medevidence:13` comes before
 * `medevidence:125` and `item-2` before `item-10` (plain string order puts them the other way).
 */

const collator = new Intl.Collator("en", { numeric: true, sensitivity: "variant" });

/**
 * Compare two ids in natural order (digit runs by value, the rest by the `en` collation); ids
 * equal under it (e.g. `a01` and `a1`) fall back to code-unit order, so the order is total and
 * stable across machines.
 * @returns negative, 0 or positive, as `Array.prototype.sort` expects
 */
export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}
