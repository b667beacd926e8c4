/** How long a signed OCSP response is valid. */
export const OCSP_RESPONSE_VALIDITY_MS = 60 * 60_000;
