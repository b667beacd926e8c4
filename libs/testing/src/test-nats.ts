import { randomBytes } from 'node:crypto';
import { connect } from 'nats';

export function testNatsUrl(): string {
  return process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
}

/** A NATS subject namespace of its own, so concurrent test files never answer each other's requests. */
export function uniqueNamespace(label = 't'): string {
  return `${label}_${randomBytes(5).toString('hex')}`;
}

/**
 * Deletes the JetStream streams of a namespace (NatsBus names them `<NAMESPACE>_CERTLANE_<SERVICE>`)
 * once its test system has stopped: left behind, a suite run leaves a thousand streams that every
 * later stream and consumer operation of the server walks past.
 */
export async function deleteNamespaceStreams(natsUrl: string, namespace: string): Promise<number> {
  const nc = await connect({ servers: natsUrl.split(','), name: 'test-cleanup' });
  try {
    const jsm = await nc.jetstreamManager();
    const prefix = `${namespace.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_`;
    const names: string[] = [];
    for await (const stream of jsm.streams.list())
      if (stream.config.name.startsWith(prefix)) names.push(stream.config.name);
    for (const name of names) await jsm.streams.delete(name);
    return names.length;
  } finally {
    await nc.close();
  }
}
