import { ApiClientConfigError } from './api-errors';
import { httpsBaseUrl, HttpsJsonClient } from './https-json-client';

describe(HttpsJsonClient.name, () => {
  it('refuses an http:// base URL before sending anything (spec 1: TLS only)', () => {
    expect(() => new HttpsJsonClient({ baseUrl: 'http://127.0.0.1:8443', apiKey: 'k' })).toThrow(
      ApiClientConfigError,
    );
    expect(() => new HttpsJsonClient({ baseUrl: 'http://127.0.0.1:8443', apiKey: 'k' })).toThrow(
      /uses http:\/\/.*https:\/\//,
    );
  });

  it.each(['ftp://host', 'not a url', ''])('refuses the base URL %p', (baseUrl) => {
    expect(() => new HttpsJsonClient({ baseUrl, apiKey: 'k' })).toThrow(ApiClientConfigError);
  });
});

describe(httpsBaseUrl.name, () => {
  it.each([
    ['https://gw.example:8443', 'https://gw.example:8443'],
    ['https://gw.example:8443/', 'https://gw.example:8443'],
    ['https://gw.example/certlane/', 'https://gw.example/certlane'],
  ])('turns %p into %p', (raw, base) => {
    expect(httpsBaseUrl(raw)).toBe(base);
  });
});
