import { accountIdOfAccountUri, AcmeUrls, locate } from './acme-urls';

describe('ACME URLs', () => {
  it('locates the shorthand and the per-profile paths (spec 4.11)', () => {
    expect(locate('https://h', '/acme/order/abc/finalize')).toEqual({
      origin: 'https://h',
      profile: 'default',
      explicitProfile: false,
      resource: 'order/abc/finalize',
    });
    expect(locate('https://h', '/acme/profile/web/directory')).toMatchObject({
      profile: 'web',
      explicitProfile: true,
      resource: 'directory',
    });
    expect(locate('https://h', '/api/v1/acme')).toBeNull();
  });

  it('builds URLs in the shape the client used', () => {
    expect(
      new AcmeUrls({ origin: 'https://h:1', profile: 'default', explicitProfile: false }).finalize('o1'),
    ).toBe('https://h:1/acme/order/o1/finalize');
    expect(new AcmeUrls({ origin: 'https://h', profile: 'web', explicitProfile: true }).account('a')).toBe(
      'https://h/acme/profile/web/account/a',
    );
  });

  it('reads the account id of a kid in either shape, whatever the origin', () => {
    const urls = new AcmeUrls({ origin: 'https://h', profile: 'default', explicitProfile: false });
    expect(urls.accountIdOf('https://other:8443/acme/account/AAAAAAAAAAAAAAAAAAAAAA')).toBe(
      'AAAAAAAAAAAAAAAAAAAAAA',
    );
    expect(urls.accountIdOf('https://h/acme/profile/web/account/AAAAAAAAAAAAAAAAAAAAAA')).toBe(
      'AAAAAAAAAAAAAAAAAAAAAA',
    );
    expect(urls.accountIdOf('https://h/acme/order/AAAAAAAAAAAAAAAAAAAAAA')).toBeNull();
    expect(urls.accountIdOf('not a url')).toBeNull();
  });
});

describe('accountIdOfAccountUri (RFC 8657 3, 5.4)', () => {
  const id = 'AbCdEfGhIjKlMnOp';
  it('reads an https account URL written as this server writes it', () => {
    expect(accountIdOfAccountUri(`https://ca.example/acme/account/${id}`)).toBe(id);
    expect(accountIdOfAccountUri(`https://ca.example:8443/acme/profile/eab/account/${id}`)).toBe(id);
  });
  it.each([
    [`http://ca.example/acme/account/${id}`, 'not https'],
    [`https://ca.example/acme/x/../account/${id}`, 'normalized'],
    [`https://CA.example/acme/account/${id}`, 'host case folded'],
    [`https://ca.example/acme/account/${id}?x=1`, 'a query'],
    [`https://user@ca.example/acme/account/${id}`, 'credentials'],
    [`urn:acme:account:${id}`, 'no authority'],
    [`https://ca.example/acme/orders/${id}`, 'not an account path'],
  ])('an unrecognised accounturi names no account: %s (%s)', (uri) => {
    expect(accountIdOfAccountUri(uri)).toBeNull();
  });
});
