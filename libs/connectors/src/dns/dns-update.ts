import { createHmac, randomInt } from 'node:crypto';

/**
 * RFC 2136 dynamic updates of TXT records, signed with TSIG (RFC 8945) when a key is given: what
 * an ACME client writes for dns-01 (`_acme-challenge`) and dns-persist-01 records, as lego's and
 * cert-manager's rfc2136 providers do. Pure: the message is built and the answer read here; the
 * transport is in dns-update-client.ts.
 */

export const TSIG_ALGORITHMS = ['hmac-sha256', 'hmac-sha512'] as const;
export type TsigAlgorithm = (typeof TSIG_ALGORITHMS)[number];

export interface TsigKey {
  name: string;
  algorithm: TsigAlgorithm;
  /** The shared secret, base64 (as `tsig-keygen` prints it). */
  secret: string;
}

export type TxtUpdate =
  /** Adds one TXT value (RFC 2136 2.5.1). */
  | { op: 'add'; name: string; value: string; ttl: number }
  /** Deletes one TXT value, leaving the others of the name (2.5.4): concurrent challenges share a name. */
  | { op: 'delete'; name: string; value: string }
  /** Deletes every TXT value of the name (2.5.2). */
  | { op: 'delete-all'; name: string };

const TYPE_SOA = 6;
const TYPE_TXT = 16;
const TYPE_TSIG = 250;
const CLASS_IN = 1;
const CLASS_NONE = 254;
const CLASS_ANY = 255;
const OPCODE_UPDATE = 5;
/** Seconds of clock difference the server may accept (RFC 8945 5.2.3 recommends 300). */
const TSIG_FUDGE = 300;

/** A DNS name in wire format, lower-cased (RFC 1035 3.1; RFC 8945 4.3.3's canonical form). */
export function wireName(name: string): Buffer {
  const labels = name
    .replace(/\.$/, '')
    .split('.')
    .filter((label) => label !== '');
  for (const label of labels)
    if (Buffer.byteLength(label) > 63) throw new Error(`DNS label longer than 63 bytes in ${name}`);
  return Buffer.concat([
    ...labels.map((label) => {
      const bytes = Buffer.from(label.toLowerCase(), 'ascii');
      return Buffer.concat([Buffer.from([bytes.length]), bytes]);
    }),
    Buffer.from([0]),
  ]);
}

const u16 = (value: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(value);
  return b;
};
const u32 = (value: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
};
const u48 = (value: number) => {
  const b = Buffer.alloc(6);
  b.writeUIntBE(value, 0, 6);
  return b;
};

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

function record(name: string, type: number, klass: number, ttl: number, rdata: Buffer): Buffer {
  return Buffer.concat([wireName(name), u16(type), u16(klass), u32(ttl), u16(rdata.length), rdata]);
}

function updateRecord(update: TxtUpdate): Buffer {
  switch (update.op) {
    case 'add':
      return record(update.name, TYPE_TXT, CLASS_IN, update.ttl, txtRdata(update.value));
    case 'delete':
      return record(update.name, TYPE_TXT, CLASS_NONE, 0, txtRdata(update.value));
    case 'delete-all':
      return record(update.name, TYPE_TXT, CLASS_ANY, 0, Buffer.alloc(0));
  }
}

/**
 * The TSIG record that signs `message` (RFC 8945 4.3): HMAC over the message as sent without it,
 * then the TSIG variables (key name, class ANY, TTL 0, algorithm, time signed, fudge, error 0,
 * no other data).
 */
export function tsigRecord(message: Buffer, key: TsigKey, timeSigned: number): Buffer {
  const algorithm = wireName(key.algorithm);
  const time = u48(timeSigned);
  const variables = Buffer.concat([
    wireName(key.name),
    u16(CLASS_ANY),
    u32(0),
    algorithm,
    time,
    u16(TSIG_FUDGE),
    u16(0),
    u16(0),
  ]);
  const mac = createHmac(key.algorithm.slice('hmac-'.length), Buffer.from(key.secret, 'base64'))
    .update(message)
    .update(variables)
    .digest();
  const rdata = Buffer.concat([
    algorithm,
    time,
    u16(TSIG_FUDGE),
    u16(mac.length),
    mac,
    message.subarray(0, 2), // original id
    u16(0),
    u16(0),
  ]);
  return record(key.name, TYPE_TSIG, CLASS_ANY, 0, rdata);
}

/** An UPDATE message for `zone` with these updates, signed when `key` is given. */
export function updateMessage(
  zone: string,
  updates: readonly TxtUpdate[],
  key?: TsigKey,
  options: { id?: number; now?: Date } = {},
): Buffer {
  const id = options.id ?? randomInt(0, 0x10000);
  const header = (additional: number) =>
    Buffer.concat([u16(id), u16(OPCODE_UPDATE << 11), u16(1), u16(0), u16(updates.length), u16(additional)]);
  const body = Buffer.concat([wireName(zone), u16(TYPE_SOA), u16(CLASS_IN), ...updates.map(updateRecord)]);
  const unsigned = Buffer.concat([header(0), body]);
  if (!key) return unsigned;
  const timeSigned = Math.floor((options.now ?? new Date()).getTime() / 1000);
  return Buffer.concat([header(1), body, tsigRecord(unsigned, key, timeSigned)]);
}

/** RFC 2136 2.2 and RFC 8945 response codes, by number, as a server answers an UPDATE. */
export const UPDATE_RCODES: Record<number, string> = {
  0: 'NOERROR',
  1: 'FORMERR',
  2: 'SERVFAIL',
  3: 'NXDOMAIN',
  4: 'NOTIMP',
  5: 'REFUSED',
  6: 'YXDOMAIN',
  7: 'YXRRSET',
  8: 'NXRRSET',
  9: 'NOTAUTH',
  10: 'NOTZONE',
};

/** The answer's response code name, checking it answers message `id`; throws for a foreign or short answer. */
export function updateAnswerCode(answer: Buffer, id: number): string {
  if (answer.length < 12) throw new Error('the DNS answer is shorter than a header');
  if (answer.readUInt16BE(0) !== id) throw new Error('the DNS answer names another message id');
  const flags = answer.readUInt16BE(2);
  if ((flags & 0x8000) === 0) throw new Error('the DNS answer is not a response');
  const rcode = flags & 0xf;
  return UPDATE_RCODES[rcode] ?? `RCODE${rcode}`;
}
