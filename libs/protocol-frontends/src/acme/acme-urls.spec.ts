import { AcmeUrls, locate } from './acme-urls';

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
