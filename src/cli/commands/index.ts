/**
 * cli/commands — the command registry. Each command lives in its own file exporting
 * `register(program)`; adding a command means adding one line here.
 */
import type { Command } from "commander";
import { register as registerIdentity } from "./identity.js";

/** Registers a command on the root program. */
export type RegisterCommand = (program: Command) => void;

/** Every command, in `--help` order. */
export const COMMANDS: readonly RegisterCommand[] = [registerIdentity];
