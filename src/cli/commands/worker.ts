/**
 * cli/commands/worker — `irrevon worker`: the background loop (engine/worker) until SIGTERM or
 * SIGINT (or `--max-cycles`): recovery first, then cycles of reconcile, recovery of abandoned
 * attempts, resolution catch-up, bounded audits and sweeps. Adapters come from
 * `irrevon.toml [adapters.<id>]` (the refdest URL from the environment variable it names);
 * intervals and the health file from `[worker]` unless given as flags. Log lines (JSON, one
 * per event of the closed catalog) go to stderr or IRREVON_LOG_FILE. A stop signal lets the
 * current cycle finish, releases the lease and exits 0. With `--json` a summary document is
 * printed on stdout at the end. A second worker on an embedded ledger is refused (exit 3):
 * one process owns the data directory; run several workers against a Postgres server.
 */
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { ErrorCode, IrrevonError } from "../../core/errors.js";
import { createLogSink } from "../../engine/log-sink.js";
import { runWorker } from "../../engine/worker.js";
import { withLedgerOptions, type LedgerFlags } from "../ledger-options.js";
import { loadConfig } from "../config.js";
import { openCliEngine } from "../open-engine.js";
import { parseCount, parseSeconds, withDeclaredOutcomes } from "../operator-args.js";
import { emitResult } from "../output.js";
import { checkOutputFile } from "../output-paths.js";

interface WorkerFlags extends LedgerFlags {
  readonly interval?: string;
  readonly sweepInterval?: string;
  readonly maxCycles?: string;
  readonly healthFile?: string;
}

/** Registers the `worker` command. */
export function register(program: Command): void {
  withLedgerOptions(
    program
      .command("worker")
      .description(
        "run the background loop: recovery, reconcile, sweeps, audits (until SIGTERM/SIGINT)",
      )
      .option("--interval <seconds>", "pause between cycles (default: [worker] interval_seconds)")
      .option(
        "--sweep-interval <seconds>",
        "minimum time between orphan sweeps (default: [worker] sweep_interval_seconds)",
      )
      .option("--max-cycles <n>", "stop after this many cycles")
      .option("--health-file <file>", "health file to replace after every cycle"),
  ).action(async (flags: WorkerFlags) => {
    const json = flags.json === true;
    const intervalSeconds =
      flags.interval === undefined ? undefined : parseSeconds(flags.interval, "--interval");
    const sweepSeconds =
      flags.sweepInterval === undefined
        ? undefined
        : parseSeconds(flags.sweepInterval, "--sweep-interval");
    const maxCycles =
      flags.maxCycles === undefined ? undefined : parseCount(flags.maxCycles, "--max-cycles");
    const loaded = loadConfig(flags.config);
    if (Object.keys(loaded.config.adapters).length === 0) {
      throw new IrrevonError(
        ErrorCode.config_invalid,
        "no destination adapters configured: add an [adapters.<id>] table to irrevon.toml",
        { details: { key: "adapters" } },
      );
    }
    const worker = loaded.config.worker;
    const healthFile =
      flags.healthFile !== undefined
        ? resolve(flags.healthFile)
        : resolve(loaded.path === null ? process.cwd() : dirname(loaded.path), worker.health_file);
    // Checked before the ledger is opened: a health file that cannot be written is a usage
    // error naming the flag, not a log line on every cycle.
    checkOutputFile(
      healthFile,
      flags.healthFile !== undefined ? "--health-file" : "[worker] health_file",
      {
        createFolder: true,
      },
    );
    const log = createLogSink();

    await withDeclaredOutcomes(json, [ErrorCode.ledger_locked], async () => {
      const { irrevon, ledger } = await openCliEngine(flags, {
        create: true,
        withAdapters: true,
        events: log.sink,
      });
      const controller = new AbortController();
      const onSignal = (signal: NodeJS.Signals): void => {
        if (!controller.signal.aborted) {
          log.sink({
            event_name: "worker.stop_requested",
            severity: "info",
            ts: new Date().toISOString(),
            worker_id: irrevon.workerId,
            signal,
          });
        }
        controller.abort();
      };
      process.on("SIGTERM", onSignal);
      process.on("SIGINT", onSignal);
      try {
        const summary = await runWorker(irrevon, {
          intervalMs: (intervalSeconds ?? worker.interval_seconds) * 1000,
          sweepIntervalMs: (sweepSeconds ?? worker.sweep_interval_seconds) * 1000,
          healthFile,
          signal: controller.signal,
          events: log.sink,
          ...(maxCycles === undefined ? {} : { maxCycles }),
        });
        const gauges = summary.gauges;
        emitResult(
          json,
          {
            worker_id: summary.workerId,
            ledger: ledger.describe,
            cycles: summary.cycles,
            stopped_by: summary.stoppedBy,
            health_file: healthFile,
            recovery:
              summary.recovery === null
                ? null
                : {
                    scanned: summary.recovery.scanned,
                    adjudicated: summary.recovery.adjudicated,
                    parked: summary.recovery.parked,
                  },
            gauges:
              gauges === null
                ? null
                : {
                    open_executions: gauges.openExecutions,
                    ambiguous_executions: gauges.ambiguousExecutions,
                    oldest_open_age_s: gauges.oldestOpenAgeSeconds,
                    open_findings: gauges.openFindings,
                  },
          },
          `worker ${summary.workerId} stopped after ${summary.cycles} cycle(s) (${summary.stoppedBy})` +
            (gauges === null
              ? ""
              : ` · open ${gauges.openExecutions} · ambiguous ${gauges.ambiguousExecutions} · open findings ${gauges.openFindings}`),
        );
      } finally {
        process.off("SIGTERM", onSignal);
        process.off("SIGINT", onSignal);
        await irrevon.close();
        log.flush();
      }
    });
  });
}
