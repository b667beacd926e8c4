import { randomBytes } from 'node:crypto';

export function testNatsUrl(): string {
  return process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
}

/** A NATS subject namespace of its own, so concurrent test files never answer each other's requests. */
export function uniqueNamespace(label = 't'): string {
  return `${label}_${randomBytes(5).toString('hex')}`;
}
