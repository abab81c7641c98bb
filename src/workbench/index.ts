/**
 * workbench — the read-only, loopback-only web workbench (`irrevon serve`): a Hono app
 * factory, a separate entry that binds it to 127.0.0.1, and the stable-id digest every
 * response passes through. May import anything; nothing imports it but the CLI entry
 * points and tests.
 */
export { createWorkbenchApp, type WorkbenchAppOptions } from "./app.js";
export {
  startWorkbench,
  DEFAULT_WORKBENCH_PORT,
  WORKBENCH_HOST,
  type RunningWorkbench,
  type StartWorkbenchOptions,
} from "./server.js";
export { redactStableIds, StableIdRedactor, MIN_EMBEDDED_LENGTH } from "../core/stable-id-redaction.js";
export { silentLogger, type WorkbenchLogger } from "./request-log.js";
export { WorkbenchErrorCode } from "./http-errors.js";
