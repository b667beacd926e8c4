import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signing (standardwebhooks.com, "Signature scheme"): the signed content is
 * `${webhook-id}.${webhook-timestamp}.${body}`, HMAC-SHA256 keyed with the base64 bytes after the
 * `whsec_` prefix, sent as `v1,<base64 signature>`.
 */
export function standardWebhookHeaders(
  secret: string,
  id: string,
  timestamp: Date,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const seconds = String(Math.floor(timestamp.getTime() / 1000));
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${seconds}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': seconds, 'webhook-signature': `v1,${signature}` };
}

/** A `whsec_` secret: the prefix and base64 of 24 to 64 bytes. */
export const WEBHOOK_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/;
