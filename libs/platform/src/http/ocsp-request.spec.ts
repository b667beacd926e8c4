import type { Request } from 'express';
import { ocspGetRequestPath } from './ocsp-request';

const get = (originalUrl: string) => ({ originalUrl }) as Request;

describe('ocspGetRequestPath', () => {
  const encoded = 'MEMwQTA%2FMD0wOzAJBgUrDgMCGgUABBQ/+ab==';

  it('takes the raw path after the issuer, its slashes and percent-encoding kept', () => {
    expect(ocspGetRequestPath(get(`/ocsp/iss-local/${encoded}`), 'iss-local')).toBe(encoded);
    expect(ocspGetRequestPath(get(`/ocsp/iss-local/${encoded}?x=1`), 'iss-local')).toBe(encoded);
  });

  it('RFC 9112 3.2.2: reads a request target in absolute form from its path', () => {
    for (const origin of ['http://pki.example', 'https://pki.example:8443', 'HTTP://PKI.EXAMPLE'])
      expect(ocspGetRequestPath(get(`${origin}/ocsp/iss-local/${encoded}`), 'iss-local')).toBe(encoded);
  });
});
