/**
 * workbench/app-env — the Hono environment type the app and its route modules share: the
 * Node request is bound when served by @hono/node-server (so the guard can see every raw
 * Host header) and absent under `app.request` in tests. Imports: nothing.
 */
import type { IncomingMessage } from "node:http";

/** Bindings of one request. */
export interface NodeBindings {
  readonly incoming?: IncomingMessage;
}

/** The app's Hono environment. */
export interface WorkbenchEnv {
  Bindings: NodeBindings;
}
