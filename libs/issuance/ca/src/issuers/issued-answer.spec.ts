import { IssuerError } from '@certlane/pki';
import { readIssuedCertificate } from './issued-answer';

describe(readIssuedCertificate.name, () => {
  it('refuses output without a certificate, and a certificate that cannot be read', () => {
    expect(() => readIssuedCertificate('nothing here', Buffer.alloc(0), 'cmd')).toThrow(
      new IssuerError('misconfigured', 'cmd gave no PEM certificate'),
    );
    expect(() =>
      readIssuedCertificate(
        '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
        Buffer.alloc(0),
        'cmd',
      ),
    ).toThrow(/^cmd gave a certificate that cannot be read: /);
  });
});
