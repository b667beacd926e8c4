/** Identifier octets of the universal types used here, and helpers for context-specific tags. */
export const Tag = {
  Boolean: 0x01,
  Integer: 0x02,
  BitString: 0x03,
  OctetString: 0x04,
  Null: 0x05,
  Oid: 0x06,
  Enumerated: 0x0a,
  Utf8String: 0x0c,
  NumericString: 0x12,
  PrintableString: 0x13,
  TeletexString: 0x14,
  Ia5String: 0x16,
  UtcTime: 0x17,
  GeneralizedTime: 0x18,
  VisibleString: 0x1a,
  UniversalString: 0x1c,
  BmpString: 0x1e,
  Sequence: 0x30,
  Set: 0x31,
} as const;

/** `[n] EXPLICIT` or a constructed `[n] IMPLICIT`: context-specific, constructed. */
export const contextConstructed = (n: number): number => 0xa0 | n;

/** A primitive `[n] IMPLICIT`: context-specific, primitive. */
export const contextPrimitive = (n: number): number => 0x80 | n;
