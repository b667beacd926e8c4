import { X509Certificate } from 'node:crypto';
import { badTimeCertificate } from '../health-checks/testing/bad-time-certificate';
import { describeCaCertificates } from './scep-prober';

describe(describeCaCertificates.name, () => {
  // Regression: the probe stored an Invalid Date, which failed when it was written or read.
  it('refuses a CA certificate whose validity time is "Bad time value" with an error the probe records', () => {
    const der = new X509Certificate(badTimeCertificate().pem).raw;
    expect(() => describeCaCertificates(der)).toThrow(
      'GetCACert answer holds a CA certificate whose validity time cannot be read',
    );
  });
});
