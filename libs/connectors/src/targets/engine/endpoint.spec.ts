import { readEndpoint } from './endpoint';

describe(readEndpoint.name, () => {
  it.each([
    ['web.example.com:8443', { host: 'web.example.com', port: 8443 }],
    ['10.0.0.1:8443', { host: '10.0.0.1', port: 8443 }],
    ['[::1]:8443', { host: '::1', port: 8443 }],
    [' web.example.com:443 ', { host: 'web.example.com', port: 443 }],
  ])('reads %j', (endpoint, expected) => {
    expect(readEndpoint(endpoint)).toEqual(expected);
  });

  it('reads a bare host only when given a default port', () => {
    expect(readEndpoint('web.example.com')).toBeNull();
    expect(readEndpoint('web.example.com', 443)).toEqual({ host: 'web.example.com', port: 443 });
  });

  it.each([
    '',
    ':443',
    'a:0',
    'a:65536',
    'a:70000',
    '::1:443',
    'a:b',
    'a:443/x',
    'https://web.example.com',
    'a b:1',
  ])('refuses %j', (endpoint) => {
    expect(readEndpoint(endpoint)).toBeNull();
    expect(readEndpoint(endpoint, 443)).toBeNull();
  });
});
