import { createSocket } from 'node:dgram';

/** A DNS name in wire format (RFC 1035 3.1). */
function wireName(name: string): Buffer {
  const labels = name.replace(/\.$/, '').split('.');
  return Buffer.concat([
    ...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')])),
    Buffer.from([0]),
  ]);
}

function u16(value: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(value);
  return b;
}

/** TXT RDATA: the value as character-strings of at most 255 bytes. */
function txtRdata(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    chunks.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Replaces the TXT records of `name` in `zone` with `values` by one RFC 2136 UPDATE (unsigned,
 * as the test BIND allows from 127.0.0.1): the way lego's rfc2136 provider writes records, for
 * the records no ACME client writes (dns-persist-01's standing `_validation-persist` TXT).
 */
export async function setTxtRecords(
  server: { port: number },
  zone: string,
  name: string,
  values: string[],
): Promise<void> {
  const TXT = 16;
  const IN = 1;
  const ANY = 255;
  const id = Math.floor(Math.random() * 0xffff);
  const owner = wireName(name);
  const deleteAll = Buffer.concat([owner, u16(TXT), u16(ANY), Buffer.alloc(4), u16(0)]);
  const adds = values.map((value) => {
    const rdata = txtRdata(value);
    const ttl = Buffer.alloc(4);
    ttl.writeUInt32BE(1);
    return Buffer.concat([owner, u16(TXT), u16(IN), ttl, u16(rdata.length), rdata]);
  });
  const packet = Buffer.concat([
    u16(id),
    u16(5 << 11), // opcode UPDATE
    u16(1), // zone
    u16(0), // prerequisites
    u16(1 + adds.length), // updates
    u16(0),
    wireName(zone),
    u16(6), // SOA
    u16(IN),
    deleteAll,
    ...adds,
  ]);
  const socket = createSocket('udp4');
  try {
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer to the DNS UPDATE')), 5_000);
      socket.once('message', (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      socket.once('error', reject);
      socket.send(packet, server.port, '127.0.0.1');
    });
    const rcode = answer.readUInt16BE(2) & 0xf;
    if (answer.readUInt16BE(0) !== id || rcode !== 0) throw new Error(`DNS UPDATE refused (rcode ${rcode})`);
  } finally {
    socket.close();
  }
}
