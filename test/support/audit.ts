/**
 * test/support/audit — the post-condition of every integration test: the ledger it leaves
 * behind satisfies every auditor rule. Runs as irrevon_read in a read-only transaction.
 */
import { expect } from "vitest";
import { auditLedger, type Violation } from "../../src/ledger/auditor.js";
import type { TestLedger } from "./databases.js";

/** Fails the test with the full violation list if the ledger breaks any invariant. */
export async function expectAuditClean(ledger: TestLedger): Promise<void> {
  const violations: Violation[] = await auditLedger(ledger.read);
  expect(violations).toEqual([]);
}
