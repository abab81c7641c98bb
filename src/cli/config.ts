/**
 * cli/config — `irrevon.toml`: where it is, what it may contain, and how the environment
 * and flags override it. Unknown keys are errors that name the key (a typo must never be
 * silently ignored: `databse_url` would otherwise fall back to the embedded ledger).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { IrrevonError } from "../core/errors.js";

const AdapterConfig = z.strictObject({
  kind: z.enum(["refdest"]),
  tier: z.enum(["C1", "C2", "C3"]).default("C2"),
  /** Name of the environment variable holding the destination URL (never the URL's secret parts). */
  url_env: z.string().min(1).default("IRREVON_REFDEST_URL"),
  /** The refdest profile's declared read lag (the adapter id becomes `refdest-<tier>-lag<N>s`). */
  lag_seconds: z.number().int().min(0).max(86_400).default(0),
});

const ConfigSchema = z.strictObject({
  schema_version: z.literal("1"),
  ledger: z
    .strictObject({
      database_url_env: z.string().min(1).default("DATABASE_URL"),
      data_dir: z.string().min(1).default(".irrevon/ledger"),
    })
    .default({ database_url_env: "DATABASE_URL", data_dir: ".irrevon/ledger" }),
  worker: z
    .strictObject({
      interval_seconds: z.number().positive().max(86_400).default(30),
      sweep_interval_seconds: z.number().positive().max(86_400).default(300),
      health_file: z.string().min(1).default(".irrevon/health.json"),
    })
    .default({ interval_seconds: 30, sweep_interval_seconds: 300, health_file: ".irrevon/health.json" }),
  reconcile: z
    .strictObject({
      reread_gap_seconds: z.number().min(0).max(86_400).default(60),
      escalation_budget: z.number().int().min(1).max(1000).default(5),
    })
    .default({ reread_gap_seconds: 60, escalation_budget: 5 }),
  sweep: z
    .strictObject({
      orphan_grace_seconds: z.number().min(0).max(30 * 86_400).default(1_800),
    })
    .default({ orphan_grace_seconds: 1_800 }),
  adapters: z.record(z.string().min(1).max(256), AdapterConfig).default({}),
  demo: z.strictObject({ seed: z.number().int().min(0).max(2 ** 31) }).default({ seed: 42 }),
});

export type IrrevonConfig = z.infer<typeof ConfigSchema>;

export const DEFAULT_CONFIG_TOML = `# irrevon.toml — written by \`irrevon init\`. Unknown keys are errors.
schema_version = "1"

[ledger]
# Embedded PGlite data directory (used when no database URL is given).
data_dir = ".irrevon/ledger"
# Name of the environment variable that holds a Postgres server URL (never the URL itself).
database_url_env = "DATABASE_URL"

[worker]
interval_seconds = 30
sweep_interval_seconds = 300
health_file = ".irrevon/health.json"

[reconcile]
reread_gap_seconds = 60
escalation_budget = 5

[adapters.refdest-c2]
kind = "refdest"
tier = "C2"
url_env = "IRREVON_REFDEST_URL"

[demo]
seed = 42
`;

export interface LoadedConfig {
  readonly config: IrrevonConfig;
  /** The file it came from, or null for built-in defaults. */
  readonly path: string | null;
}

/** Finds the nearest irrevon.toml from `startDir` upwards. */
export function findConfigFile(startDir: string): string | null {
  let dir = resolve(startDir);
  for (;;) {
    const candidate = join(dir, "irrevon.toml");
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** Parses and validates config text; every problem names its key. */
export function parseConfig(text: string, source: string): IrrevonConfig {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (cause) {
    throw new IrrevonError("config_invalid", `${source}: not valid TOML (${cause instanceof Error ? cause.message.split("\n")[0] : "parse error"})`, {
      details: { source },
      cause,
    });
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const described = issues.map(describeIssue);
    const shown = described.slice(0, 3).map((d) => d.text);
    if (described.length > 3) shown.push(`and ${described.length - 3} more`);
    // Every problem is named, not only the first (an unknown key next to a missing
    // schema_version used to be reported as the version alone).
    throw new IrrevonError("config_invalid", `${source}: ${shown.join("; ")}`, {
      details: { source, key: described[0]?.key ?? "", issues: issues.map((i) => ({ path: i.path.join("."), code: i.code })) },
    });
  }
  return parsed.data;
}

function describeIssue(issue: z.core.$ZodIssue): { key: string; text: string } {
  const path = issue.path.join(".");
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => [path, k].filter((p) => p.length > 0).join("."));
    return { key: keys[0] ?? path, text: keys.map((k) => `unknown key '${k}' (remove it or check its spelling)`).join("; ") };
  }
  return { key: path, text: `'${path}' ${issue.message}` };
}

/** Loads `explicitPath`, else IRREVON_CONFIG, else the nearest irrevon.toml, else defaults. */
export function loadConfig(explicitPath?: string, cwd: string = process.cwd()): LoadedConfig {
  // An empty $IRREVON_CONFIG is unset, not a path.
  const fromEnv = process.env["IRREVON_CONFIG"];
  const path = explicitPath ?? (fromEnv !== undefined && fromEnv !== "" ? fromEnv : findConfigFile(cwd));
  if (path === null || path === undefined) return { config: parseConfig('schema_version = "1"', "defaults"), path: null };
  if (!existsSync(path)) throw new IrrevonError("config_invalid", `config file not found: ${path}`, { details: { path } });
  return { config: parseConfig(readConfigText(path, explicitPath !== undefined ? "--config" : fromEnv !== undefined && fromEnv !== "" ? "$IRREVON_CONFIG" : null), path), path };
}

/** A configuration is a few kilobytes; anything larger is not one. */
export const CONFIG_MAX_BYTES = 1024 * 1024;

/**
 * Reads the configuration at `path` (named by `source`: the flag or variable that gave it, or
 * null when it was found), refusing before reading anything that is not a regular file — a
 * directory, a FIFO that would block, a device such as /dev/zero — or is over CONFIG_MAX_BYTES.
 */
function readConfigText(path: string, source: string | null): string {
  const named = source === null ? path : `${source} ${path}`;
  const stats = statSync(path);
  if (!stats.isFile())
    throw new IrrevonError("config_invalid", `${named} is not a regular file; point it at an irrevon.toml`, {
      details: { path, ...(source === null ? {} : { source }) },
    });
  if (stats.size > CONFIG_MAX_BYTES)
    throw new IrrevonError(
      "config_invalid",
      `${named} is ${stats.size} bytes, over the ${CONFIG_MAX_BYTES}-byte limit of a configuration file`,
      { details: { path, limit: CONFIG_MAX_BYTES, size: stats.size, ...(source === null ? {} : { source }) } },
    );
  return readFileSync(path, "utf8");
}

/**
 * Where the ledger lives: `--database-url` wins, then `--data-dir` (relative to the working
 * directory), then the environment variable the config names (DATABASE_URL by default), then
 * $IRREVON_DATA_DIR (relative to the working directory), then the config's `data_dir`
 * (relative to the config file's folder).
 */
export function resolveLedgerLocation(
  loaded: LoadedConfig,
  flags: { databaseUrl?: string | undefined; dataDir?: string | undefined },
): { kind: "postgres"; url: string } | { kind: "pglite"; dataDir: string } {
  // A path on the command line (or in the environment) is relative to the working directory,
  // like any command's; the config file's data_dir is relative to the config file's folder.
  if (flags.dataDir !== undefined && flags.databaseUrl === undefined)
    return { kind: "pglite", dataDir: resolve(flags.dataDir) };
  const envName = loaded.config.ledger.database_url_env;
  const fromEnv = process.env[envName];
  const url = flags.databaseUrl ?? (fromEnv !== undefined && fromEnv.length > 0 ? fromEnv : undefined);
  if (url !== undefined) {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      const source = flags.databaseUrl !== undefined ? "--database-url" : `$${envName}`;
      throw new IrrevonError("usage", `${source} must be a URL starting with postgres:// or postgresql://`, {
        details: flags.databaseUrl !== undefined ? { flag: source } : { env: envName },
      });
    }
    return { kind: "postgres", url };
  }
  const fromEnvDir = process.env["IRREVON_DATA_DIR"];
  if (fromEnvDir !== undefined && fromEnvDir.length > 0) return { kind: "pglite", dataDir: resolve(fromEnvDir) };
  const base = loaded.path === null ? process.cwd() : dirname(loaded.path);
  return { kind: "pglite", dataDir: resolve(base, loaded.config.ledger.data_dir) };
}
