/**
 * engine/lease-keeper — this process's worker lease (D2). Registered at open, renewed
 * before any claim that needs more lease than is left, and in the background; released at
 * close. The remaining lease is estimated with the local monotonic clock started BEFORE
 * each renewal was sent, so the estimate is never longer than the database's own view. A lease
 * can be forfeited (the dispatcher could not record a receipt under it): it is then never
 * renewed again, and the next refresh registers a new token, which supersedes it. Only its own
 * lease: a worker id whose lease another live engine holds is refused (`worker_id_in_use`).
 * Imports: core, db, ledger.
 */
import { performance } from "node:perf_hooks";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { Db } from "../db/db.js";
import type { WorkerLease } from "../ledger/types.js";
import { registerWorker, releaseWorker, renewWorker } from "../ledger/worker-leases.js";

/** Holds this process's worker lease. */
export interface LeaseKeeper {
  readonly workerId: string;
  /** The current lease; registers or renews first when less than `minRemainingMs` is left. */
  ensure(minRemainingMs: number): Promise<WorkerLease>;
  /**
   * Milliseconds of lease left by the local estimate (0 before registration). Given `heldAs`
   * (the lease a claim was made under), 0 unless the keeper still holds THAT lease: after a
   * re-registration the time left belongs to a new token, not to the claim.
   */
  remainingMs(heldAs?: WorkerLease): number;
  /**
   * Gives up `heldAs` if it is still the current lease: it is never renewed again and the next
   * `ensure` or heartbeat registers a new token, superseding it, so every attempt claimed under
   * it becomes recovery's to adjudicate — this process's own reconcile included.
   */
  forfeit(heldAs: WorkerLease): void;
  /** Ends the lease (clean shutdown) and stops the heartbeat. */
  release(): Promise<void>;
}

/** Options of {@link startLeaseKeeper}. */
export interface LeaseKeeperOptions {
  readonly workerId: string;
  readonly ttlMs: number;
  /** Renew in the background every ttl/3 (default true). */
  readonly heartbeat?: boolean;
  readonly onError?: (e: unknown) => void;
}

/** Registers the worker and returns its keeper. */
export async function startLeaseKeeper(db: Db, options: LeaseKeeperOptions): Promise<LeaseKeeper> {
  const { workerId, ttlMs } = options;
  let lease: WorkerLease | null = null;
  let localExpiry = 0;
  let closed = false;
  let pending: Promise<WorkerLease> | null = null;
  // A forfeited lease not yet superseded: released at close, so a successor need not wait.
  let forfeited: WorkerLease | null = null;
  // The last token this keeper registered: only that lease may be superseded by this keeper.
  // Any other live lease of the worker id belongs to another engine: worker_id_in_use.
  let ownToken: number | null = null;

  async function register(): Promise<WorkerLease> {
    const sentAt = performance.now();
    const granted = await registerWorker(db, workerId, ttlMs, ownToken);
    ownToken = granted.fencingToken;
    lease = { workerId, fencingToken: granted.fencingToken };
    localExpiry = sentAt + ttlMs;
    forfeited = null;
    return lease;
  }

  async function renew(current: WorkerLease): Promise<WorkerLease> {
    const sentAt = performance.now();
    try {
      await renewWorker(db, current, ttlMs);
      // Forfeited while the renewal was on the wire: the renewal must not count.
      if (lease?.fencingToken !== current.fencingToken) return await register();
      localExpiry = sentAt + ttlMs;
      return current;
    } catch (e) {
      // A lease that ran out is never revived: register again under a new token. Attempts
      // claimed under the old token are now recovery's to adjudicate.
      if (e instanceof IrrevonError && e.code === ErrorCode.lease_lost) return register();
      throw e;
    }
  }

  function refresh(): Promise<WorkerLease> {
    pending ??= (lease === null ? register() : renew(lease)).finally(() => {
      pending = null;
    });
    return pending;
  }

  await register();
  let timer: NodeJS.Timeout | undefined;
  if (options.heartbeat !== false) {
    timer = setInterval(
      () => {
        if (closed) return;
        refresh().catch((e: unknown) => options.onError?.(e));
      },
      Math.max(50, Math.floor(ttlMs / 3)),
    );
    timer.unref();
  }

  return {
    workerId,
    async ensure(minRemainingMs) {
      if (closed)
        throw new IrrevonError(ErrorCode.lease_lost, "the engine is closed", {
          details: { worker_id: workerId },
        });
      if (lease !== null && localExpiry - performance.now() > minRemainingMs) return lease;
      const current = await refresh();
      // A refresh already in flight may have renewed a lease forfeited since: go again.
      return lease?.fencingToken === current.fencingToken ? current : refresh();
    },
    remainingMs(heldAs) {
      if (lease === null) return 0;
      if (heldAs !== undefined && heldAs.fencingToken !== lease.fencingToken) return 0;
      return Math.max(0, localExpiry - performance.now());
    },
    forfeit(heldAs) {
      if (lease === null || lease.fencingToken !== heldAs.fencingToken) return;
      forfeited = lease;
      lease = null;
      localExpiry = 0;
    },
    async release() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      if (pending !== null) await pending.catch(() => undefined);
      const last = lease ?? forfeited;
      if (last !== null) await releaseWorker(db, last).catch(() => undefined);
    },
  };
}
