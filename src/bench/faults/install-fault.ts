/**
 * bench/faults/install-fault — maps each benchmark fault onto the reference destination
 * (reference design §2.2 and the extension faults of docs/decisions/0012):
 *
 * | fault | destination side |
 * | response-lost, retry-storm, semantic-resynthesis, crash-after-effect-before-response, agent-replan, read-lag | one-shot DROP_RESPONSE_AFTER_COMMIT on the next `create` (`notify` on C3) |
 * | c3-real-effect | one-shot ERROR_5XX_AFTER_COMMIT on the next `notify`: stored, answered 500 |
 * | crash-before-persist, stale-authorization, branch-cancellation, new-intent | nothing |
 *
 * Read lag is a property of the destination profile, not of one request (a request takes at
 * most one fault): `refdestProfileFor` gives the read-lag cell a destination whose creates
 * become visible to status queries and listings only `READ_LAG_SECONDS` after they commit.
 * Imports: refdest (control client types), bench/fault-model.
 */
import type { FaultEntryInput } from "../../refdest/control-client.js";
import { READ_LAG_SECONDS, type Cell, type FaultKind, type Tier } from "../fault-model.js";

/** The control-API calls a fault needs (RefdestControlClient satisfies it). */
export interface RefdestControl {
  schedule(entries: readonly FaultEntryInput[], options?: { readonly replace?: boolean }): Promise<number>;
}

/** One injection as the schedule holds it (only the fault matters to the destination). */
export interface FaultInjection {
  readonly trial_index: number;
  readonly fault: FaultKind;
  readonly param: { readonly retries?: number; readonly variant_id?: string; readonly delay_ms?: number };
}

/** The destination profile of a cell: tier and read lag. */
export function refdestProfileFor(cell: Pick<Cell, "tier" | "fault">): { tier: Tier; lagSeconds: number } {
  return { tier: cell.tier, lagSeconds: cell.fault === "read-lag" ? READ_LAG_SECONDS : 0 };
}

/** The destination entries of one injection (empty when the fault acts elsewhere). */
export function faultEntriesFor(fault: FaultKind, tier: Tier): FaultEntryInput[] {
  const op = tier === "C3" ? "notify" : "create";
  switch (fault) {
    case "response-lost":
    case "retry-storm":
    case "semantic-resynthesis":
    case "crash-after-effect-before-response":
    case "agent-replan":
    case "read-lag":
      return [{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op }, once: true }];
    case "c3-real-effect":
      return [{ fault: "ERROR_5XX_AFTER_COMMIT", match: { op }, once: true }];
    case "crash-before-persist":
    case "stale-authorization":
    case "branch-cancellation":
    case "new-intent":
      return [];
  }
}

/** Installs the destination side of one injection before its trial runs. */
export async function installFault(control: RefdestControl, injection: FaultInjection, tier: Tier): Promise<void> {
  const entries = faultEntriesFor(injection.fault, tier);
  if (entries.length > 0) await control.schedule(entries);
}
