import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { ConfigError } from '../config/config-error';
import { createLogger } from '../logging/logger';
import { generateSelfSignedCertificate } from './self-signed';
import { outboundTlsOptions } from './outbound-tls';

/** A logger writing JSON lines into memory, so the test can read what would have been logged. */
function memoryLogger() {
  const lines: string[] = [];
  const logger = createLogger({
    service: 'test',
    version: '0.0.0',
    level: 'info',
    destination: { write: (line: string) => lines.push(line) },
  });
  return { logger, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe(outboundTlsOptions.name, () => {
  const dir = mkdtempSync(join(tmpdir(), 'certlane-outbound-'));
  const bundlePath = join(dir, 'bundle.pem');
  let bundlePem: string;

  beforeAll(async () => {
    bundlePem = (
      await generateSelfSignedCertificate({ commonName: 'private root', dnsNames: ['nats.internal'] })
    ).certPem;
    writeFileSync(bundlePath, bundlePem);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('trusts the system roots, verifies certificates and allows TLS 1.2 peers by default', () => {
    const { logger, records } = memoryLogger();
    const options = outboundTlsOptions({ insecureSkipVerify: false }, logger);
    expect(options).toEqual({ ca: [...rootCertificates], rejectUnauthorized: true, minVersion: 'TLSv1.2' });
    expect(records()).toEqual([]);
  });

  it('appends the CA bundle to the system roots', () => {
    const options = outboundTlsOptions({ caBundlePath: bundlePath, insecureSkipVerify: false });
    expect(options.ca).toHaveLength(rootCertificates.length + 1);
    expect(options.ca.slice(0, rootCertificates.length)).toEqual([...rootCertificates]);
    expect(options.ca[options.ca.length - 1]).toBe(bundlePem);
    expect(options.rejectUnauthorized).toBe(true);
  });

  it('refuses an unreadable CA bundle path with a ConfigError naming the variable and the path', () => {
    const missing = join(dir, 'missing.pem');
    const attempt = () => outboundTlsOptions({ caBundlePath: missing, insecureSkipVerify: false });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(`SERVICE_SERVER_CA_BUNDLE_PATH ${missing} cannot be read`);
  });

  it('refuses a CA bundle path that is a directory', () => {
    expect(() => outboundTlsOptions({ caBundlePath: dir, insecureSkipVerify: false })).toThrow(ConfigError);
  });

  it('turns verification off and logs one warning when insecureSkipVerify is set', () => {
    const { logger, records } = memoryLogger();
    const options = outboundTlsOptions({ insecureSkipVerify: true }, logger);
    expect(options.rejectUnauthorized).toBe(false);
    expect(records()).toEqual([
      expect.objectContaining({
        level: 'warn',
        service: 'test',
        message: expect.stringContaining('SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY=true'),
      }),
    ]);
  });
});
