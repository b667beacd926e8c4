import { parseEndpoint } from './tls-probe';

describe('parseEndpoint', () => {
  it.each([
    ['web.example.com:8443', { host: 'web.example.com', port: 8443 }],
    ['web.example.com', { host: 'web.example.com', port: 443 }],
    ['127.0.0.1:443', { host: '127.0.0.1', port: 443 }],
    ['[::1]:8443', { host: '::1', port: 8443 }],
  ])('reads %s', (endpoint, expected) => {
    expect(parseEndpoint(endpoint)).toEqual(expected);
  });

  it.each(['', 'https://web.example.com', 'web.example.com:0', 'web.example.com:70000', 'a b:1', '::1:443'])(
    'refuses %j',
    (endpoint) => {
      expect(parseEndpoint(endpoint)).toBeNull();
    },
  );
});
