import type { Server } from 'node:http';

/**
 * Stops taking connections and resolves once the requests in flight have been answered: idle
 * keep-alive connections are closed as they become idle, and after `timeoutMs` any connection
 * still open is cut. The quick start's stop does this before it drains its bus and closes its
 * services, so a request that arrived is finished against a running database (ADR 0080).
 */
export function stopListening(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((done) => {
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(cut);
      done();
    });
  });
}
