/**
 * cli/commands — the command registry. Each command lives in its own file exporting
 * `register(program)`; adding a command means adding one line here.
 */
import type { Command } from "commander";
import { register as registerBench } from "./bench.js";
import { register as registerBranch } from "./branch.js";
import { register as registerDemo } from "./demo.js";
import { register as registerDeny } from "./deny.js";
import { register as registerDoctor } from "./doctor.js";
import { register as registerFindings } from "./findings.js";
import { register as registerIdentity } from "./identity.js";
import { register as registerInit } from "./init.js";
import { register as registerInspect } from "./inspect.js";
import { register as registerMigrate } from "./migrate.js";
import { register as registerRefdest } from "./refdest.js";
import { register as registerResolve } from "./resolve.js";
import { register as registerServe } from "./serve.js";
import { register as registerWorker } from "./worker.js";

/** Registers a command on the root program. */
export type RegisterCommand = (program: Command) => void;

/** Every command, in `--help` order. */
export const COMMANDS: readonly RegisterCommand[] = [
  registerInit,
  registerMigrate,
  registerDemo,
  registerInspect,
  registerDoctor,
  registerIdentity,
  registerRefdest,
  registerServe,
  registerWorker,
  registerFindings,
  registerResolve,
  registerDeny,
  registerBranch,
  registerBench,
];
