import { isIP } from 'node:net';
import type { Request } from 'express';

/**
 * The client IP of a request: the TCP peer, or the X-Forwarded-For entry Express picks through
 * SERVICE_TRUSTED_PROXIES. IPv4-mapped IPv6 addresses are written as plain IPv4.
 */
export function clientIp(request: Request): string {
  const raw = request.ip ?? request.socket.remoteAddress ?? '';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(raw);
  const address = mapped ? mapped[1] : raw;
  return isIP(address) ? address : '0.0.0.0';
}
