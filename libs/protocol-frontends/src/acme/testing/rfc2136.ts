import { sendDnsUpdate } from '@certlane/connectors';

/**
 * Replaces the TXT records of `name` in `zone` with `values` by one RFC 2136 UPDATE (unsigned,
 * as the test BIND allows from 127.0.0.1): the way lego's rfc2136 provider writes records, for
 * the records no ACME client writes (dns-persist-01's standing `_validation-persist` TXT).
 */
export function setTxtRecords(
  server: { port: number },
  zone: string,
  name: string,
  values: string[],
): Promise<void> {
  return sendDnsUpdate({ host: '127.0.0.1', port: server.port }, zone, [
    { op: 'delete-all', name },
    ...values.map((value) => ({ op: 'add' as const, name, value, ttl: 1 })),
  ]);
}
