import { isIP } from 'node:net';
import { AcmeProblem } from '../problems/acme-problem';

/** At most this many redirects are followed while validating http-01 (Let's Encrypt's limit). */
export const MAX_HTTP01_REDIRECTS = 10;

/**
 * Where an http-01 redirect may lead (RFC 8555 8.3: the server MAY follow redirects; CA/B and
 * Let's Encrypt practice): an absolute or relative `Location`, to `http` on the validation port or
 * `https` on 443 (the ports the domain's operator controls), to a DNS name rather than an address,
 * without credentials. Returns the next URL or throws a problem naming why not.
 */
export function http01RedirectTarget(
  location: string | undefined,
  from: URL,
  ports: { http: number; https: number },
  redirectsSoFar: number,
): URL {
  if (redirectsSoFar >= MAX_HTTP01_REDIRECTS)
    throw new AcmeProblem('connection', `more than ${MAX_HTTP01_REDIRECTS} redirects`);
  if (!location) throw new AcmeProblem('unauthorized', `${from.href} redirected without a Location`);
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new AcmeProblem('unauthorized', `${from.href} redirected to an invalid URL`);
  }
  if (next.username || next.password)
    throw new AcmeProblem('unauthorized', 'a redirect must not carry credentials');
  const port = next.port ? Number(next.port) : next.protocol === 'https:' ? 443 : 80;
  if (
    next.protocol === 'http:' ? port !== ports.http : next.protocol === 'https:' ? port !== ports.https : true
  )
    throw new AcmeProblem(
      'unauthorized',
      `a redirect may only lead to http on port ${ports.http} or https on port ${ports.https}, not ${next.protocol}//…:${port}`,
    );
  const host = next.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !isIP(from.hostname.replace(/^\[|\]$/g, '')))
    throw new AcmeProblem('unauthorized', 'a redirect from a name must lead to a name, not an IP address');
  return next;
}
