/**
 * test/support/history/fault-proxy — a TCP proxy between an engine process and the shared
 * Postgres server, so a test can make "the database" vanish and come back for ONE engine
 * without restarting the server everyone shares. `down()` resets every proxied connection
 * and resets each new one at once (what a client sees while a server restarts); `up()`
 * forwards again. Loopback only.
 */
import { createServer, Socket, type Server } from "node:net";

export class FaultProxy {
  readonly #server: Server;
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #down = false;
  port = 0;

  private constructor(target: { host: string; port: number }) {
    this.#target = target;
    this.#server = createServer((client) => this.#accept(client));
  }

  /** Starts a proxy to the server of `databaseUrl` on an ephemeral loopback port. */
  static async start(databaseUrl: string): Promise<FaultProxy> {
    const u = new URL(databaseUrl);
    const proxy = new FaultProxy({ host: u.hostname, port: Number(u.port || 5432) });
    await new Promise<void>((resolve) => proxy.#server.listen(0, "127.0.0.1", resolve));
    const address = proxy.#server.address();
    proxy.port = typeof address === "object" && address !== null ? address.port : 0;
    return proxy;
  }

  /** `databaseUrl` with its host and port replaced by the proxy's. */
  url(databaseUrl: string): string {
    const u = new URL(databaseUrl);
    u.hostname = "127.0.0.1";
    u.port = String(this.port);
    return u.toString();
  }

  #accept(client: Socket): void {
    client.on("error", () => undefined);
    if (this.#down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = new Socket();
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    upstream.connect(this.#target.port, this.#target.host, () => {
      client.pipe(upstream);
      upstream.pipe(client);
    });
    for (const s of [client, upstream]) {
      this.#sockets.add(s);
      s.on("close", () => {
        this.#sockets.delete(s);
        if (s === client) upstream.destroy();
        else client.destroy();
      });
    }
  }

  /** Cuts every connection and refuses new ones until `up()`. */
  down(): void {
    this.#down = true;
    for (const s of this.#sockets) s.resetAndDestroy();
    this.#sockets.clear();
  }

  up(): void {
    this.#down = false;
  }

  async close(): Promise<void> {
    this.down();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
