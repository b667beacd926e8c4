/** RFC 9773 4.1: the certificate identifier, base64url(AKI keyIdentifier) "." base64url(serial octets). */
export function renewalCertId(authorityKeyIdentifier: Uint8Array, serialOctets: Uint8Array): string {
  return `${Buffer.from(authorityKeyIdentifier).toString('base64url')}.${Buffer.from(serialOctets).toString('base64url')}`;
}

const CERT_ID = /^[A-Za-z0-9_-]{1,128}\.[A-Za-z0-9_-]{1,64}$/;

export function isRenewalCertId(value: string): boolean {
  return CERT_ID.test(value);
}

/** How long clients should wait before asking again (RFC 9773 4.3: Retry-After), 6 hours. */
export const RENEWAL_INFO_RETRY_AFTER_SECONDS = 6 * 3600;

/**
 * RFC 9773 4.2, the suggested renewal window: from two thirds of the certificate's lifetime to
 * three quarters (clients pick a random time inside it, which spreads renewals). A revoked
 * certificate gets a window that has already passed: renew now. A certificate already renewed
 * (replaced by another) gets the last hundredth of its lifetime: nothing is left to renew, and a
 * client still asking is not sent to renew it a second time.
 */
export function suggestedRenewalWindow(certificate: {
  notBefore: Date;
  notAfter: Date;
  revokedAt?: Date | null;
  replaced?: boolean;
}): { start: Date; end: Date } {
  if (certificate.revokedAt) {
    const end = certificate.revokedAt.getTime();
    return { start: new Date(end - 3600_000), end: new Date(end) };
  }
  const begin = certificate.notBefore.getTime();
  const lifetime = certificate.notAfter.getTime() - begin;
  if (certificate.replaced)
    return { start: new Date(certificate.notAfter.getTime() - lifetime / 100), end: certificate.notAfter };
  return { start: new Date(begin + (lifetime * 2) / 3), end: new Date(begin + (lifetime * 3) / 4) };
}

/** How far an operator's early renewal spreads the clients by default (RFC 9773 4.2), 1 hour. */
export const EARLY_RENEWAL_DEFAULT_SPREAD_MS = 3600_000;

/**
 * The window of an early renewal an operator asked for at `now`: from now to now + spread, never
 * past the certificate's end. A certificate already expired cannot be renewed early: null.
 */
export function earlyRenewalWindow(
  now: Date,
  notAfter: Date,
  spreadMs = EARLY_RENEWAL_DEFAULT_SPREAD_MS,
): { start: Date; end: Date } | null {
  if (notAfter.getTime() <= now.getTime()) return null;
  return { start: now, end: new Date(Math.min(now.getTime() + spreadMs, notAfter.getTime())) };
}

/**
 * The window of an early renewal asked at `now` for many certificates at once (every certificate
 * of an ACME account or profile), in the form one set-based statement applies: it is
 * earlyRenewalWindow of a certificate outliving the spread, so each certificate's own window is
 * `start .. min(end, notAfter)` and a certificate with `notAfter <= start` is left out, which is
 * what earlyRenewalWindow answers for it alone. The spread must be positive.
 */
export function bulkEarlyRenewalWindow(
  now: Date,
  spreadMs = EARLY_RENEWAL_DEFAULT_SPREAD_MS,
): { start: Date; end: Date } {
  const window = earlyRenewalWindow(now, new Date(now.getTime() + spreadMs), spreadMs);
  if (!window)
    throw new RangeError(`an early renewal spreads clients over a positive time, not ${spreadMs} ms`);
  return window;
}

/**
 * The renewalInfo answer (RFC 9773 4.2) of a stored certificate: revoked wins (a window already
 * past, with the configured revocation explanation), then an operator's early renewal (its
 * window and explanation), then the ordinary window. `explanationURL` only when one is known.
 */
export function renewalInfoOf(
  certificate: {
    notBefore: Date;
    notAfter: Date;
    revokedAt?: Date | null;
    replaced?: boolean;
    renewEarly?: { start: Date; end: Date } | null;
    explanationUrl?: string | null;
  },
  revocationExplanationUrl?: string,
): { suggestedWindow: { start: string; end: string }; explanationURL?: string } {
  const answer = (window: { start: Date; end: Date }, explanation?: string | null) => ({
    suggestedWindow: { start: window.start.toISOString(), end: window.end.toISOString() },
    ...(explanation ? { explanationURL: explanation } : {}),
  });
  if (certificate.revokedAt)
    return answer(
      suggestedRenewalWindow(certificate),
      revocationExplanationUrl ?? certificate.explanationUrl,
    );
  const ordinary = suggestedRenewalWindow(certificate);
  // Moved earlier only: the early window wins while it closes before the ordinary one.
  if (certificate.renewEarly && certificate.renewEarly.end.getTime() < ordinary.end.getTime())
    return answer(certificate.renewEarly, certificate.explanationUrl);
  return answer(ordinary, certificate.explanationUrl);
}
