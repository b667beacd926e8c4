import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { assertSafeInput, assertSafeUrl, INPUT_LIMITS, parseQuery } from './input-guard';

function refusal(run: () => void): { code: string; details: Record<string, unknown> } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(CertlaneError);
    const { code, details } = error as CertlaneError;
    return { code, details: details ?? {} };
  }
}

const nested = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
};

describe(assertSafeInput.name, () => {
  it('accepts a typical body: nested config, tags, arrays of ids, a large PEM', () => {
    const body = {
      name: 'web',
      tags: { team: 'platform', env: 'prod' },
      config: { acme: { directory: 'https://acme.example/dir', eab: { kid: 'k', hmac: 'h' } } },
      ids: Array.from({ length: 100_000 }, (_, i) => `c-${i}`),
      certificate_pem: 'A'.repeat(INPUT_LIMITS.maxStringLength),
      unicode: 'ünïcode \u2028 ok',
    };
    expect(refusal(() => assertSafeInput(body, 'body'))).toBeUndefined();
    expect(refusal(() => assertSafeInput(nested(INPUT_LIMITS.maxDepth - 1), 'body'))).toBeUndefined();
  });

  it('refuses nesting beyond the depth limit with input_too_deep and the path to it', () => {
    const refused = refusal(() => assertSafeInput({ a: { b: nested(40) } }, 'body'));
    expect(refused).toMatchObject({
      code: ErrorCode.InputTooDeep,
      details: { in: 'body', limit: INPUT_LIMITS.maxDepth, field: expect.stringMatching(/^a\.b\.0\.a\./) },
    });
  });

  it('refuses 10,000 levels of nesting without overflowing the stack', () => {
    const deep = JSON.parse('['.repeat(10_000) + ']'.repeat(10_000)) as unknown;
    expect(refusal(() => assertSafeInput(deep, 'payload'))?.code).toBe(ErrorCode.InputTooDeep);
  });

  it('refuses an object wider than the per-object limit with input_too_wide', () => {
    const wide = Object.fromEntries(
      Array.from({ length: INPUT_LIMITS.maxKeysPerObject + 1 }, (_, i) => [`k${i}`, 'v']),
    );
    expect(refusal(() => assertSafeInput({ tags: wide }, 'body'))).toEqual({
      code: ErrorCode.InputTooWide,
      details: { in: 'body', field: 'tags', limit: INPUT_LIMITS.maxKeysPerObject },
    });
  });

  it('refuses more keys in all than the total limit, spread over narrow objects', () => {
    const many = Array.from({ length: 20 }, () =>
      Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}`, i])),
    );
    expect(refusal(() => assertSafeInput(many, 'body'))).toMatchObject({
      code: ErrorCode.InputTooWide,
      details: { limit: INPUT_LIMITS.maxKeysTotal },
    });
  });

  it('refuses 70,000 keys (the stalled-gateway body) in linear time', () => {
    const text = `{"token":"x",${Array.from({ length: 70_000 }, (_, i) => `"k${i}":"v"`).join(',')}}`;
    const body = JSON.parse(text) as unknown;
    const started = process.hrtime.bigint();
    expect(refusal(() => assertSafeInput(body, 'body'))?.code).toBe(ErrorCode.InputTooWide);
    // Object.keys of the one object: a few milliseconds even on a loaded machine, not seconds.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(250);
  });

  it.each([
    ['a string value', { name: 'a\u0000b' }, 'name'],
    ['an array item', { sans: ['ok', 'x\u0000'] }, 'sans.1'],
    ['a key', { tags: { 'k\u0000': 'v' } }, 'tags.k\u0000'],
  ])('refuses a NUL character in %s with input_nul_byte', (_what, body, field) => {
    expect(refusal(() => assertSafeInput(body, 'body'))).toEqual({
      code: ErrorCode.InputNulByte,
      details: { in: 'body', field },
    });
  });

  it('refuses a string longer than the string limit with input_string_too_long', () => {
    const refused = refusal(() =>
      assertSafeInput({ csr: 'A'.repeat(INPUT_LIMITS.maxStringLength + 1) }, 'body'),
    );
    expect(refused).toEqual({
      code: ErrorCode.InputStringTooLong,
      details: { in: 'body', field: 'csr', limit: INPUT_LIMITS.maxStringLength },
    });
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the prototype key %s at any depth', (key) => {
    const body = JSON.parse(`{"tags":{"${key}":{"prototype":{}}}}`) as unknown;
    expect(refusal(() => assertSafeInput(body, 'body'))).toEqual({
      code: ErrorCode.InputKeyForbidden,
      details: { in: 'body', field: `tags.${key}` },
    });
  });

  it('checks a bare string and ignores other scalars', () => {
    expect(refusal(() => assertSafeInput('a\u0000', 'payload'))?.code).toBe(ErrorCode.InputNulByte);
    for (const scalar of [null, undefined, 1, true])
      expect(refusal(() => assertSafeInput(scalar, 'payload'))).toBeUndefined();
  });

  it('costs microseconds for a small body', () => {
    const body = {
      name: 'web',
      version: '1.2.3',
      hostname: 'h.example.com',
      tags: { a: '1', b: '2' },
      sans: ['a', 'b'],
    };
    const rounds = 10_000;
    const started = process.hrtime.bigint();
    for (let i = 0; i < rounds; i++) assertSafeInput(body, 'body');
    const microsEach = Number(process.hrtime.bigint() - started) / 1e3 / rounds;
    expect(microsEach).toBeLessThan(50);
  });
});

describe(assertSafeUrl.name, () => {
  it.each([
    ['/api/v1/certificates/%00', 'path'],
    ['/crl/%00.crl', 'path'],
    ['/api/v1/certificates?owner_id=%00', 'query'],
    ['/api/v1/certificates?owner_id=a%00b', 'query'],
  ])('refuses %s with input_nul_byte in the %s', (url, location) => {
    expect(refusal(() => assertSafeUrl(url))).toEqual({
      code: ErrorCode.InputNulByte,
      details: { in: location },
    });
  });

  it('accepts other percent-encodings, including an encoded "%00" text', () => {
    for (const url of ['/api/v1/certificates/a%20b', '/x?q=%2500', '/ocsp/MEUw%2BQ%3D%3D', '/health']) {
      expect(refusal(() => assertSafeUrl(url))).toBeUndefined();
    }
  });
});

describe(parseQuery.name, () => {
  it('parses as Express`s simple parser does', () => {
    expect({ ...parseQuery('page=2&tag=a&tag=b&q=a%20b') }).toEqual({ page: '2', tag: ['a', 'b'], q: 'a b' });
  });

  it('refuses a prototype key and a NUL value', () => {
    expect(refusal(() => parseQuery('constructor=x'))?.code).toBe(ErrorCode.InputKeyForbidden);
    expect(refusal(() => parseQuery('owner_id=%00'))).toEqual({
      code: ErrorCode.InputNulByte,
      details: { in: 'query', field: 'owner_id' },
    });
  });
});
