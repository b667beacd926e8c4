import { dns01TxtValue, http01BodyMatches, http01Path, keyAuthorization } from './key-authorization';

describe('key authorization', () => {
  it('joins token and thumbprint with a dot (RFC 8555 8.1)', () => {
    expect(keyAuthorization('tok', 'thumb')).toBe('tok.thumb');
  });
  it('computes the dns-01 TXT value of RFC 8555 8.4', () => {
    // base64url(sha256("tok.thumb")), computed independently with openssl dgst.
    expect(dns01TxtValue('tok.thumb')).toBe('sYAwVrqDtVOuJZvAHurSAYPoEt5fFV_C4bdSOOW-o5Y');
  });
  it('names the well-known path', () => {
    expect(http01Path('abc')).toBe('/.well-known/acme-challenge/abc');
  });
  it('RFC 8555 8.3: a body that is not the key authorization does not match', () => {
    expect(http01BodyMatches('tok.thumb\n', 'tok.thumb')).toBe(true);
    expect(http01BodyMatches('tok.other', 'tok.thumb')).toBe(false);
    expect(http01BodyMatches(' tok.thumb', 'tok.thumb')).toBe(false);
  });
});
