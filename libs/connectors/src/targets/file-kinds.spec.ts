import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ENVOY_SECRET_TYPE } from './envoy/envoy.connector';
import { IMPLEMENTED_TARGET_TYPES, targetConnector, TargetKindNotImplementedError } from './registry';
import { FakeHost } from './testing/fake-host';
import { createTestCa, TestCa } from './testing/test-certificates';

let ca: TestCa;
let dir: string;
beforeAll(() => {
  ca = createTestCa();
});
afterAll(() => ca.cleanup());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'certlane-kinds-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('traefik (no Debian package: the output against the documented file-provider format)', () => {
  it('writes cert/key files and a dynamic config whose tls.certificates name them', async () => {
    const material = ca.issue();
    const config = {
      cert_path: `${dir}/site.crt`,
      key_path: `${dir}/site.key`,
      dynamic_config_path: `${dir}/certlane-tls.yml`,
    };
    const result = await targetConnector('traefik').deploy(config, material, new FakeHost());
    expect(result).toMatchObject({ ok: true });
    // https://doc.traefik.io/traefik/https/tls/#user-defined: tls.certificates[].certFile / keyFile.
    const dynamic = parse(readFileSync(config.dynamic_config_path, 'utf8'));
    expect(dynamic).toEqual({
      tls: { certificates: [{ certFile: config.cert_path, keyFile: config.key_path }] },
    });
    expect(readFileSync(config.dynamic_config_path, 'utf8')).toContain(material.fingerprintSha256);
    expect(readFileSync(config.cert_path, 'utf8')).toBe(
      `${material.certificatePem.trim()}\n${material.chainPem.trim()}\n`,
    );
    expect(readFileSync(config.key_path, 'utf8')).toBe(`${material.privateKeyPem.trim()}\n`);
    expect(statSync(config.key_path).mode & 0o777).toBe(0o600);
    expect(statSync(config.dynamic_config_path).mode & 0o777).toBe(0o644);
  });

  it('quotes paths so YAML special characters cannot change the structure', async () => {
    const material = ca.issue();
    const config = {
      cert_path: `${dir}/a: b.crt`,
      key_path: `${dir}/#key.pem`,
      dynamic_config_path: `${dir}/tls.yml`,
    };
    await targetConnector('traefik').deploy(config, material, new FakeHost());
    expect(parse(readFileSync(config.dynamic_config_path, 'utf8')).tls.certificates[0]).toEqual({
      certFile: config.cert_path,
      keyFile: config.key_path,
    });
  });
});

describe('envoy (no Debian package: the output against the documented SDS format)', () => {
  it('writes cert/key files and a path-based SDS Secret resource naming them', async () => {
    const material = ca.issue();
    const config = {
      cert_path: `${dir}/envoy.crt`,
      key_path: `${dir}/envoy.key`,
      sds_path: `${dir}/web-cert.yaml`,
      chain_path: `${dir}/chain.pem`,
    };
    const result = await targetConnector('envoy').deploy(config, material, new FakeHost());
    expect(result).toMatchObject({ ok: true });
    // https://www.envoyproxy.io/docs/envoy/latest/configuration/security/secret (key rotation, path-based SDS):
    // resources: [{ "@type": ...tls.v3.Secret, name, tls_certificate: { certificate_chain: {filename}, private_key: {filename} } }]
    const sds = parse(readFileSync(config.sds_path, 'utf8'));
    expect(sds).toEqual({
      resources: [
        {
          '@type': ENVOY_SECRET_TYPE,
          name: 'web-cert',
          tls_certificate: {
            certificate_chain: { filename: config.cert_path },
            private_key: { filename: config.key_path },
          },
        },
      ],
    });
    expect(ENVOY_SECRET_TYPE).toBe('type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret');
    // With chain_path the leaf and the chain are separate files.
    expect(readFileSync(config.cert_path, 'utf8')).toBe(`${material.certificatePem.trim()}\n`);
    expect(readFileSync(config.chain_path, 'utf8')).toBe(`${material.chainPem.trim()}\n`);
  });
});

describe('PEM-file kinds', () => {
  it.each(['nginx', 'apache', 'caddy', 'postfix', 'dovecot'])(
    '%s writes the full chain and the key with file_mode',
    async (type) => {
      const material = ca.issue();
      const config = {
        cert_path: `${dir}/c.pem`,
        key_path: `${dir}/k.pem`,
        file_mode: '0640',
        reload_command: 'systemctl reload x',
      };
      const host = new FakeHost();
      host.served = [material.fingerprintSha256];
      const result = await targetConnector(type).deploy(config, material, host, {
        endpoint: 'mail.example.test:25',
      });
      expect(result).toMatchObject({ ok: true });
      expect(statSync(config.key_path).mode & 0o777).toBe(0o640);
      expect(statSync(config.cert_path).mode & 0o777).toBe(0o644);
      expect(host.commands).toEqual([['systemctl', 'reload', 'x']]);
      const starttls = { postfix: 'smtp', dovecot: 'imap' }[type];
      expect(host.servedCalls[0]).toEqual({
        endpoint: 'mail.example.test:25',
        serverName: undefined,
        starttls,
      });
    },
  );

  it('refuses an invalid config before touching anything, naming the keys but not the values', async () => {
    const host = new FakeHost();
    const result = await targetConnector('nginx').deploy(
      { cert_path: 'relative/path', key_path: `${dir}/k.pem`, password: 'hunter2' },
      ca.issue(),
      host,
    );
    expect(result).toMatchObject({
      ok: false,
      rolledBack: false,
      error: 'invalid target config: cert_path, password',
    });
    expect(JSON.stringify(result)).not.toContain('hunter2');
    expect(host.commands).toEqual([]);
  });

  it('refuses cert_path equal to key_path', async () => {
    const result = await targetConnector('caddy').deploy(
      { cert_path: `${dir}/x.pem`, key_path: `${dir}/x.pem` },
      ca.issue(),
      new FakeHost(),
    );
    expect(result.ok).toBe(false);
  });
});

describe('targetConnector', () => {
  it('has the nine agent-run file kinds', () => {
    expect(IMPLEMENTED_TARGET_TYPES.sort()).toEqual(
      [
        'apache',
        'caddy',
        'dovecot',
        'envoy',
        'haproxy',
        'java_keystore',
        'nginx',
        'postfix',
        'traefik',
      ].sort(),
    );
    for (const type of IMPLEMENTED_TARGET_TYPES) expect(targetConnector(type).type).toBe(type);
  });

  it.each(['iis', 'f5', 'kubernetes_secret', 'aws_acm', 'azure_key_vault', 'ssh', 'nonsense'])(
    '%s: a clear error',
    (type) => {
      expect(() => targetConnector(type)).toThrow(TargetKindNotImplementedError);
      expect(() => targetConnector(type)).toThrow(
        type === 'ssh'
          ? /agentless by deployment-dispatch/
          : new RegExp(`target kind ${type} has no connector yet`),
      );
    },
  );
});
