import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Request } from 'express';
import proxyaddr from 'proxy-addr';

/**
 * The client IP of a request: the TCP peer, or the X-Forwarded-For entry Express picks through
 * SERVICE_TRUSTED_PROXIES. IPv4-mapped IPv6 addresses are written as plain IPv4.
 */
export function clientIp(request: Request): string {
  return clientAddress(request.ip ?? request.socket.remoteAddress);
}

/** An address as `clientIp` writes it: IPv4-mapped IPv6 as plain IPv4, anything else not an IP as 0.0.0.0. */
export function clientAddress(raw: string | undefined): string {
  const text = raw ?? '';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(text);
  const address = mapped ? mapped[1] : text;
  return isIP(address) ? address : '0.0.0.0';
}

/**
 * `clientIp` for requests Express does not see (a fast lane): the same X-Forwarded-For walk
 * through the same trusted hops (`proxy-addr`, which Express's `request.ip` uses).
 */
export function clientIpReader(trustedProxies: readonly string[]): (request: IncomingMessage) => string {
  const trust = trustedProxies.length > 0 ? proxyaddr.compile([...trustedProxies]) : () => false;
  return (request) => clientAddress(proxyaddr(request, trust));
}
