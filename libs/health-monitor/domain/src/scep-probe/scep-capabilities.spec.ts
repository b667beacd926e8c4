import {
  daysToExpiry,
  keyAlgorithmText,
  parseScepCapabilities,
  SCEP_CAPABILITIES_MAX,
} from './scep-capabilities';

describe('parseScepCapabilities', () => {
  it('RFC 8894 3.5.2: accepts keywords in any case', () => {
    const caps = parseScepCapabilities('aes\r\npostpkioperation\nrenewal\nsha-512\n');
    expect(caps).toMatchObject({
      supports_rfc8894: false,
      supports_aes: true,
      supports_post: true,
      supports_renewal: true,
      supports_sha256: false,
      supports_sha512: true,
    });
    expect(caps.capabilities).toEqual(['aes', 'postpkioperation', 'renewal', 'sha-512']);
  });

  it('RFC 8894 3.5.2: SCEPStandard implies AES, POSTPKIOperation and SHA-256', () => {
    expect(parseScepCapabilities('SCEPStandard')).toMatchObject({
      supports_rfc8894: true,
      supports_aes: true,
      supports_post: true,
      supports_sha256: true,
      supports_renewal: false,
      supports_sha512: false,
    });
  });

  it('keeps only keyword-shaped lines, so a page that is not a SCEP server is not stored', () => {
    const page = [
      '<html><body>',
      'Internal admin: password=hunter2',
      'AES',
      `${'A'.repeat(65)}`,
      'SHA-256 ',
      '{"token": "abc"}',
      '</body></html>',
    ].join('\n');
    const caps = parseScepCapabilities(page);
    expect(caps.capabilities).toEqual(['AES', 'SHA-256']);
    expect(caps).toMatchObject({ supports_aes: true, supports_sha256: true });
  });

  it('keeps at most SCEP_CAPABILITIES_MAX keywords of a long answer', () => {
    const body = Array.from({ length: 10_000 }, (_, i) => `Keyword${i}`).join('\n');
    const caps = parseScepCapabilities(body);
    expect(caps.capabilities).toHaveLength(SCEP_CAPABILITIES_MAX);
    expect(caps.capabilities[0]).toBe('Keyword0');
  });

  it('reports nothing for an empty answer', () => {
    expect(parseScepCapabilities('\n\n')).toMatchObject({ capabilities: [], supports_aes: false });
  });
});

describe('daysToExpiry', () => {
  it('counts whole days left and goes negative after expiry', () => {
    const now = new Date('2026-11-24T00:00:00Z');
    expect(daysToExpiry(new Date('2026-12-04T12:00:00Z'), now)).toBe(10);
    expect(daysToExpiry(new Date('2026-11-23T12:00:00Z'), now)).toBe(-1);
  });
});

describe('keyAlgorithmText', () => {
  it.each([
    ['rsa', { modulusLength: 4096 }, 'RSA-4096'],
    ['ec', { namedCurve: 'prime256v1' }, 'ECDSA-prime256v1'],
    ['ed25519', {}, 'Ed25519'],
    ['dsa', { modulusLength: 2048 }, 'DSA-2048'],
  ])('%s -> %s', (type, details, text) => {
    expect(keyAlgorithmText(type, details)).toBe(text);
  });
});
