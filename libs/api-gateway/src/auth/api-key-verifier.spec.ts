import { ApiKeyVerifier, bearerToken } from './api-key-verifier';

describe(ApiKeyVerifier.name, () => {
  const verifier = new ApiKeyVerifier('s3cret-key-0123456789');

  it('accepts exactly the configured key', () => {
    expect(verifier.matches('s3cret-key-0123456789')).toBe(true);
  });

  it.each(['', 's3cret-key-012345678', 's3cret-key-01234567890', 'S3CRET-KEY-0123456789'])(
    'refuses %j',
    (presented) => {
      expect(verifier.matches(presented)).toBe(false);
    },
  );

  it('does not keep the key itself', () => {
    expect(JSON.stringify(Object.values(verifier))).not.toContain('s3cret');
  });
});

describe(bearerToken.name, () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer   abc  ', 'abc'],
    ['Basic abc', undefined],
    ['Bearer', undefined],
    ['Bearer a b', undefined],
    [undefined, undefined],
  ])('reads %j as %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});
