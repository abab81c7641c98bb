/**
 * cli/adapters-from-config — the destination adapters an `irrevon.toml` declares:
 *
 *   [adapters.refdest-c2]
 *   kind = "refdest"              # the only kind so far
 *   tier = "C2"                   # C1 | C2 | C3
 *   url_env = "IRREVON_REFDEST_URL"  # the environment variable holding the origin (never the URL itself)
 *   lag_seconds = 0               # the profile's declared read lag
 *
 * The table key must be the adapter id the declaration produces (`refdest-<tier>` or
 * `refdest-<tier>-lag<N>s`), because that id is stored with every record; a mismatch is
 * `config_invalid` naming the key. A missing URL variable, or one that is not an http(s) URL, is
 * `config_invalid` naming it (never its value).
 */
import type { Adapter } from "../adapters/contract.js";
import { refdestDeclaration } from "../adapters/declarations/refdest.js";
import { RefdestAdapter } from "../adapters/refdest-adapter.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { IrrevonConfig } from "./config.js";

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/** Builds every configured adapter; `env` defaults to the process environment. */
export function adaptersFromConfig(
  config: IrrevonConfig,
  env: NodeJS.ProcessEnv = process.env,
): Adapter[] {
  const adapters: Adapter[] = [];
  for (const [id, entry] of Object.entries(config.adapters)) {
    const declaration = refdestDeclaration(
      entry.tier,
      entry.lag_seconds > 0 ? { lagSeconds: entry.lag_seconds } : {},
    );
    if (declaration.adapter !== id) {
      throw new IrrevonError(
        ErrorCode.config_invalid,
        `[adapters.${id}] declares adapter '${declaration.adapter}'; name the table [adapters.${declaration.adapter}]`,
        { details: { key: `adapters.${id}`, expected: declaration.adapter } },
      );
    }
    const url = env[entry.url_env];
    if (url === undefined || url === "") {
      throw new IrrevonError(
        ErrorCode.config_invalid,
        `[adapters.${id}] needs the destination URL in $${entry.url_env}`,
        { details: { key: `adapters.${id}.url_env`, variable: entry.url_env } },
      );
    }
    if (!isHttpUrl(url)) {
      // The value is not echoed: a URL may carry credentials.
      throw new IrrevonError(
        ErrorCode.config_invalid,
        `[adapters.${id}]: $${entry.url_env} must be an http:// or https:// URL (the destination's origin)`,
        { details: { key: `adapters.${id}.url_env`, variable: entry.url_env } },
      );
    }
    adapters.push(new RefdestAdapter({ baseUrl: url, declaration }));
  }
  return adapters;
}
