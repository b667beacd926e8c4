import { parseEndpoint } from './connection-probe';

describe(parseEndpoint.name, () => {
  it('reads host:port, bracketed IPv6 included', () => {
    expect(parseEndpoint('web.example.com:443')).toEqual({ host: 'web.example.com', port: 443 });
    expect(parseEndpoint('10.0.0.1:8443')).toEqual({ host: '10.0.0.1', port: 8443 });
    expect(parseEndpoint('[::1]:8443')).toEqual({ host: '::1', port: 8443 });
  });

  it('refuses what is not host:port, and ports outside 1..65535', () => {
    for (const bad of ['web.example.com', ':443', 'a:0', 'a:65536', '::1:443', 'a:b', 'a:443/x']) {
      expect([bad, parseEndpoint(bad)]).toEqual([bad, null]);
    }
  });
});
