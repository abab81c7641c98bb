#!/usr/bin/env node
/**
 * cli/main — the `irrevon` executable. All behaviour lives in cli/run; this file only
 * hands it the arguments and sets the exit code (never process.exit, so pending output
 * is written before the process ends).
 */
import { runCli } from "./run.js";

process.exitCode = await runCli(process.argv.slice(2));
