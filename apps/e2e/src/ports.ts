import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

function portsFree(first: number, count: number): Promise<boolean> {
  const one = (port: number) =>
    new Promise<boolean>((done) => {
      const server = createServer();
      server.once('error', () => done(false));
      // The services listen on every interface.
      server.listen(port, '0.0.0.0', () => server.close(() => done(true)));
    });
  return Promise.all(Array.from({ length: count }, (_, i) => one(first + i))).then((all) =>
    all.every(Boolean),
  );
}

/**
 * The first port of the kernel's ephemeral range: client sockets (Postgres, NATS, other tests)
 * take their local ports from it at any moment, so a listener range must stay below it.
 */
function ephemeralStart(): number {
  try {
    return (
      Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768
    );
  } catch {
    return 32768;
  }
}

/** The first of `count` consecutive free ports below the ephemeral range. */
export async function freeBasePort(count: number): Promise<number> {
  const span = Math.max(1000, ephemeralStart() - 20000 - count);
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20000 + Math.floor(Math.random() * span);
    if (await portsFree(base, count)) return base;
  }
  throw new Error('no free port range');
}
