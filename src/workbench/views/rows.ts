/**
 * workbench/views/rows — typed reads of the inspect document's loosely typed rows (the
 * document is JSON: each row is an object of strings, numbers, nulls and nested evidence).
 * Imports: nothing.
 */

/** One row of an inspect section. */
export type Row = Readonly<Record<string, unknown>>;

/** The rows of a section (anything that is not an object is skipped). */
export function rowsOf(section: unknown): Row[] {
  return Array.isArray(section)
    ? section.filter((r): r is Row => typeof r === "object" && r !== null && !Array.isArray(r))
    : [];
}

/** A string field, or null. */
export function str(row: Row, key: string): string | null {
  const v = row[key];
  return typeof v === "string" ? v : null;
}

/** A numeric field, or null. */
export function num(row: Row, key: string): number | null {
  const v = row[key];
  return typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : null;
}
