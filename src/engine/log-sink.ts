/**
 * engine/log-sink — structured JSON log lines for operators (§8 "Logs"): one line per engine
 * event from the closed catalog (events.ts), `{severity, ts, event_name, …fields}`, written by
 * pino synchronously (a line is on disk before the process can die) to stderr or, when
 * IRREVON_LOG_FILE names one, to that file (created with its directory, appended to).
 * Decisions never read logs. Imports: engine.
 */
import { pino } from "pino";
import type { EngineEventSink } from "./events.js";

/** Options of {@link createLogSink}. */
export interface LogSinkOptions {
  /** A file to append to; default: IRREVON_LOG_FILE, else stderr. */
  readonly file?: string;
  /** Lowest severity written (default: IRREVON_LOG_LEVEL, else info). */
  readonly level?: "debug" | "info" | "warn" | "error";
}

/** An event sink writing JSON lines through pino, and a flush for shutdown. */
export interface LogSink {
  readonly sink: EngineEventSink;
  flush(): void;
}

function levelFromEnv(): LogSinkOptions["level"] {
  const v = process.env["IRREVON_LOG_LEVEL"];
  return v === "debug" || v === "info" || v === "warn" || v === "error" ? v : undefined;
}

/** Creates the sink (see the file header). */
export function createLogSink(options: LogSinkOptions = {}): LogSink {
  const file = options.file ?? process.env["IRREVON_LOG_FILE"];
  const destination = pino.destination({
    dest: file === undefined || file === "" ? 2 : file,
    sync: true,
    mkdir: true,
  });
  const logger = pino(
    {
      level: options.level ?? levelFromEnv() ?? "info",
      base: null,
      timestamp: false,
      formatters: { level: (label) => ({ severity: label }) },
    },
    destination,
  );
  return {
    sink(event) {
      const { severity, event_name, ts, ...fields } = event;
      logger[severity]({ ts, event_name, ...fields });
    },
    flush() {
      try {
        destination.flushSync();
      } catch {
        // Nothing buffered (sync destination) or the stream is gone; never fail a shutdown.
      }
    },
  };
}
