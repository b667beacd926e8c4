import { assertBodyWasJson, attachmentName, queryFlag, renewForce } from './request-flags';

describe('renewForce', () => {
  it.each([
    [undefined, undefined, false],
    ['true', undefined, true],
    ['1', undefined, true],
    ['false', undefined, false],
    ['0', true, true],
    [undefined, true, true],
    [undefined, false, false],
  ] as const)('query %s and body %s give %s', (query, body, expected) => {
    expect(renewForce(query, body)).toBe(expected);
  });
});

describe('queryFlag', () => {
  it('is true only for true and 1', () => {
    expect(['true', '1', 'TRUE', 'yes', '', undefined].map((v) => queryFlag(v))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('attachmentName', () => {
  it('keeps ids and replaces anything a header could misread', () => {
    expect(attachmentName('web-1.example', 'pem')).toBe('web-1.example.pem');
    expect(attachmentName('a"b\r\n', 'p12')).toBe('a_b__.p12');
  });
});

describe('assertBodyWasJson', () => {
  it('refuses a body the JSON parser left unread, whatever its framing', () => {
    for (const headers of [{ 'content-length': '12' }, { 'transfer-encoding': 'chunked' }]) {
      expect(() => assertBodyWasJson(headers, undefined)).toThrow(
        expect.objectContaining({ code: 'unsupported_media_type' }),
      );
    }
  });

  it('lets a parsed body, an empty one and none through', () => {
    expect(() => assertBodyWasJson({ 'content-length': '12' }, { reason: 'superseded' })).not.toThrow();
    expect(() => assertBodyWasJson({ 'content-length': '0' }, undefined)).not.toThrow();
    expect(() => assertBodyWasJson({}, undefined)).not.toThrow();
  });
});
