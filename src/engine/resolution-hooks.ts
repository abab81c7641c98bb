/**
 * engine/resolution-hooks — what makes COMPENSATED and REDISPATCHED resolutions finish:
 *   - `closeResolutionsAfterCommit` runs after any execution settles COMMITTED: it closes
 *     REDISPATCHED findings of that effect (its replacement committed) and COMPENSATED
 *     findings it compensates;
 *   - `closeSettledResolutions` (worker, every cycle) closes whatever a hook missed because a
 *     process died between a commit and its hook, or a commit came from another path;
 *   - `resumePendingRedispatches` (worker) dispatches a replacement execution whose
 *     REDISPATCHED decision is recorded but whose dispatch never ran (the deciding process
 *     died in between, or the gate denied it). The gate still checks it like any dispatch, as
 *     automatic work: a standing deny is recorded and escalated once, not every cycle.
 * A close that lost a race to another process (stale_state) is not an error: it is closed.
 * Imports: core, db, ledger, engine.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { Db } from "../db/db.js";
import { closeReplacedFindings } from "../ledger/redispatch-resolution.js";
import {
  closeCompensatedFindings,
  listClosableResolutions,
  listPendingReplacements,
} from "../ledger/resolution-close.js";
import { emit, type EngineContext } from "./context.js";
import { dispatchEffect, type DispatchOutcome } from "./dispatcher.js";

async function tolerateStale(run: () => Promise<number[]>): Promise<number[]> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof IrrevonError && e.code === ErrorCode.stale_state) return [];
    throw e;
  }
}

/** Closes the findings that `effectId`'s commit completes; returns their ids. */
export async function closeResolutionsAfterCommit(db: Db, effectId: string): Promise<number[]> {
  const replaced = await tolerateStale(() => closeReplacedFindings(db, effectId));
  const compensated = await tolerateStale(() => closeCompensatedFindings(db, effectId));
  return [...replaced, ...compensated];
}

/** Worker catch-up: closes every resolution whose closing commit already happened. */
export async function closeSettledResolutions(ctx: EngineContext): Promise<number[]> {
  const closable = await listClosableResolutions(ctx.db);
  const closed: number[] = [];
  for (const effectId of closable.replacedEffects)
    closed.push(...(await tolerateStale(() => closeReplacedFindings(ctx.db, effectId))));
  for (const effectId of closable.compensatingEffects)
    closed.push(...(await tolerateStale(() => closeCompensatedFindings(ctx.db, effectId))));
  for (const findingId of closed)
    emit(ctx, "finding_resolved", "info", { finding_id: findingId, to: "CLOSED", actor: "system" });
  return closed;
}

/** Worker: dispatches recorded-but-never-dispatched replacements; returns the outcomes. */
export async function resumePendingRedispatches(
  ctx: EngineContext,
): Promise<Array<{ effectId: string; outcome: DispatchOutcome }>> {
  const out: Array<{ effectId: string; outcome: DispatchOutcome }> = [];
  for (const effectId of await listPendingReplacements(ctx.db)) {
    const outcome = await dispatchEffect(ctx, effectId, {
      variant: "resolve_redispatch",
      automatic: { actor: "recovery" },
    });
    if (outcome.status === "dispatched" && outcome.lifecycle === "SETTLED_COMMITTED")
      await closeResolutionsAfterCommit(ctx.db, effectId);
    out.push({ effectId, outcome });
  }
  return out;
}
