/**
 * ledger/audit-violation — the auditor's closed set of rules and its finding shape.
 * Imports: nothing.
 */

/** The auditor's rules. */
export const AuditRule = {
  append_only: "append_only",
  seed_tables: "seed_tables",
  state_legality: "state_legality",
  contiguity: "contiguity",
  terminality: "terminality",
  ambiguous_evidence: "ambiguous_evidence",
  gate: "gate",
  attempt_key: "attempt_key",
  classification: "classification",
  resolution: "resolution",
  /** A cited probe, receipt or human decision that does not exist, belongs elsewhere or does not support the state. */
  evidence_citation: "evidence_citation",
  /** A derived index (db/ledger-tables DERIVED_TABLES) that differs from what the facts derive. */
  derived_index: "derived_index",
} as const;
export type AuditRule = (typeof AuditRule)[keyof typeof AuditRule];
export const AUDIT_RULES: readonly AuditRule[] = Object.values(AuditRule);

/** One broken invariant. `subject` names the rows involved. */
export interface Violation {
  readonly rule: AuditRule;
  readonly detail: string;
  readonly subject?: Readonly<Record<string, unknown>>;
}
