/**
 * db/ledger-tables — names of the tables sql/migrations creates, grouped by how they are
 * protected. The auditor and the privilege tests iterate these lists; the migrations test
 * checks them against the catalog. Imports: nothing.
 */

/** Append-only fact tables (0003–0007). */
export const FACT_TABLES = [
  "effect_records",
  "parameter_variants",
  "effect_executions",
  "effect_transitions",
  "scope_slots",
  "gate_decisions",
  "dispatch_attempts",
  "dispatch_receipts",
  "late_responses",
  "status_probes",
  "findings",
  "finding_resolutions",
  "authorities",
  "effect_authorities",
  "authority_policies",
  "branch_cancellations",
  "deny_entries",
  "deny_lifts",
  "sweep_runs",
  "sweep_sightings",
  "recovery_runs",
  "execution_parameters",
] as const;
export type FactTable = (typeof FACT_TABLES)[number];

/** Reference data generated from src/core/state-tables.ts (0002). */
export const SEED_TABLES = [
  "lifecycle_edges",
  "classification_attachments",
  "resolution_actions",
  "resolution_status_edges",
] as const;
export type SeedTable = (typeof SEED_TABLES)[number];

/** Fact tables irrevon_app may INSERT into (evidence); everything else is written by the locked functions. */
export const APP_INSERT_TABLES: readonly FactTable[] = [
  "effect_records",
  "parameter_variants",
  "scope_slots",
  "gate_decisions",
  "dispatch_attempts",
  "dispatch_receipts",
  "late_responses",
  "status_probes",
  "authorities",
  "effect_authorities",
  "branch_cancellations",
  "deny_entries",
  "deny_lifts",
  "sweep_runs",
  "sweep_sightings",
  "recovery_runs",
];

/** Fact tables irrevon_app holds UPDATE on, only so SELECT … FOR UPDATE works. */
export const APP_LOCKABLE_TABLES: readonly FactTable[] = ["scope_slots", "effect_records"];

/**
 * Derived indexes (0058, 0059, 0061): rows computed from the facts by irrevon_owner's triggers, in the
 * transaction that writes the fact. Not facts: a row leaves when the fact that ends it arrives,
 * so they are exempt from the append-only rule and the auditor checks them against their
 * definition instead (rule `derived_index`). irrevon_app and irrevon_read only read them.
 */
export const DERIVED_TABLES = ["open_attempt_slots", "open_executions", "open_findings"] as const;

/** Read views (0009). */
export const LEDGER_VIEWS = ["execution_frontiers", "effect_frontiers", "open_attempts"] as const;

/** The locked SECURITY DEFINER functions (0010) with their argument types. */
export const LOCKED_FUNCTIONS = [
  "ledger_open_execution(text, text)",
  "ledger_open_execution(text, text, jsonb)",
  "ledger_transition(bigint, text, text, text, text, jsonb)",
  "ledger_attach_finding(text, text, text, text, integer, jsonb, text, text)",
  "ledger_resolve(bigint, text, text, text, jsonb)",
] as const;
