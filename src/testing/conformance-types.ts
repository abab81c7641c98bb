/**
 * testing/conformance-types — the shapes of the adapter conformance suite: the harness an
 * adapter author implements to let the suite inject faults into their destination, the
 * options, and the report. Imports: adapters (types).
 */
import type { Adapter } from "../adapters/contract.js";

/**
 * A fresh adapter plus control over the destination it talks to. The suite asks for a new
 * harness per check (so checks never see each other's effects) and closes it afterwards.
 */
export interface ConformanceHarness {
  readonly adapter: Adapter;
  /** The next create commits at the destination, but its response is lost (connection dropped). */
  dropNextResponse(): void | Promise<void>;
  /** Effects created from now on stay invisible to status queries and lists for `ms` (0 = none). */
  setReadLagMs(ms: number): void | Promise<void>;
  /** Move destination time forward by `ms` (a fake clock), or wait that long for a real one. */
  advanceMs(ms: number): void | Promise<void>;
  /** A destination ref that names no effect; default `"irrevon-conformance-missing-ref"`. */
  readonly unknownDestinationRef?: string;
  /** A list window covering every effect this harness creates; default 2000-01-01 … 2100-01-01. */
  listWindow?(): { readonly from: string; readonly to: string };
  /** Release the destination (servers, timers). */
  close?(): void | Promise<void>;
}

/** Makes a fresh harness; called once per check. */
export type HarnessFactory = () => ConformanceHarness | Promise<ConformanceHarness>;

/** The checks the suite runs, by stable name. */
export const CONFORMANCE_CHECKS = [
  "declaration.valid",
  "declaration.queryable",
  "declaration.list_queryable",
  "declaration.idempotency",
  "not_found.client_ref",
  "not_found.destination_ref",
  "lost_response.outcome",
  "lost_response.found_by_client_ref",
  "read_lag.visible_after_declared_lag",
  "list.pagination",
  "batch.matches_single",
  "batch.engine_respects_max",
] as const;
export type ConformanceCheckName = (typeof CONFORMANCE_CHECKS)[number];

export interface ConformanceOptions {
  /** The create the suite sends for effect number `i`; default `conformance.create` / `{n: i}`. */
  readonly order?: (i: number) => {
    readonly effectType: string;
    readonly payload: Readonly<Record<string, unknown>>;
  };
  /** Effects created for the pagination check: more than one list page (default 150). */
  readonly listEffectsCount?: number;
  /** Read lag injected when the declared status lag is null (unbounded); default 1000 ms. */
  readonly readLagMs?: number;
  /** Deadline of every adapter call, ms (default 5000). */
  readonly deadlineMs?: number;
  /** Run only these checks (default: all). */
  readonly only?: readonly ConformanceCheckName[];
}

/** One check's verdict. `skip` says why the check does not apply to this declaration. */
export interface ConformanceCheck {
  readonly name: ConformanceCheckName;
  readonly status: "pass" | "fail" | "skip";
  readonly reason: string;
}

export interface ConformanceReport {
  readonly adapterId: string;
  readonly tier: "C1" | "C2" | "C3";
  /** True when no check failed. */
  readonly passed: boolean;
  readonly checks: readonly ConformanceCheck[];
  /** The failed checks only. */
  readonly failures: readonly ConformanceCheck[];
}
