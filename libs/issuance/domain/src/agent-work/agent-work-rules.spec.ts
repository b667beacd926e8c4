import { AGENT_REPORT_STATUSES, JOB_STATUSES, JOB_TYPES } from '@certlane/contracts';
import {
  agentClaimant,
  agentClaimRefusal,
  agentReportRefusal,
  canonicalName,
  CertificateFacts,
  checkCsrAgainstCertificate,
  CsrFacts,
  isAgentWork,
} from './agent-work-rules';

const CN = '2.5.4.3';
const certificate: CertificateFacts = {
  common_name: 'web.example.com',
  key_algorithm: 'ECDSA-P256',
  names: [
    { type: 'dns', value: 'web.example.com' },
    { type: 'dns', value: 'www.example.com' },
    { type: 'ip', value: '2001:db8::7' },
  ],
};
const csr = (changes: Partial<CsrFacts> = {}): CsrFacts => ({
  subject: { commonName: 'web.example.com', attributes: [{ shortName: 'CN', oid: CN }] },
  subjectAltNames: [
    { type: 'dns', value: 'web.example.com' },
    { type: 'dns', value: 'www.example.com' },
  ],
  publicKey: { algorithm: 'ECDSA', size: 256, curve: 'P-256', description: 'ECDSA-P-256' },
  requestsCa: false,
  ...changes,
});
const ruleOf = (facts: CsrFacts, cert: CertificateFacts = certificate) => {
  const result = checkCsrAgainstCertificate(facts, cert);
  return result.ok ? 'ok' : result.rule;
};

describe(checkCsrAgainstCertificate.name, () => {
  it('accepts a CSR with the certificate key family, its CN and a subset of its names', () => {
    expect(ruleOf(csr())).toBe('ok');
    expect(ruleOf(csr({ subjectAltNames: [] }))).toBe('ok');
  });

  it('compares DNS names and the CN without case, and IPv6 addresses in canonical form', () => {
    const facts = csr({
      subject: { commonName: 'WEB.Example.com', attributes: [{ shortName: 'CN', oid: CN }] },
      subjectAltNames: [
        { type: 'dns', value: 'WWW.EXAMPLE.COM.' },
        { type: 'ip', value: '2001:0db8:0:0:0:0:0:7' },
      ],
    });
    expect(ruleOf(facts)).toBe('ok');
  });

  it('refuses a key of another family than the certificate key_algorithm (csr_key_algorithm_mismatch)', () => {
    const rsa = csr({ publicKey: { algorithm: 'RSA', size: 2048, description: 'RSA-2048' } });
    const result = checkCsrAgainstCertificate(rsa, certificate);
    expect(result).toMatchObject({ ok: false, rule: 'csr_key_algorithm_mismatch' });
    expect(!result.ok && result.message).toContain('ECDSA-P256');
    expect(ruleOf(csr(), { ...certificate, key_algorithm: 'Ed25519' })).toBe('csr_key_algorithm_mismatch');
  });

  it('refuses a weaker key of the right family and accepts a stronger one (csr_key_too_small)', () => {
    const rsa = (size: number) => csr({ publicKey: { algorithm: 'RSA', size, description: `RSA-${size}` } });
    const rsa3072: CertificateFacts = { ...certificate, key_algorithm: 'RSA-3072' };
    expect(ruleOf(rsa(2048), rsa3072)).toBe('csr_key_too_small');
    expect(ruleOf(rsa(3072), rsa3072)).toBe('ok');
    expect(ruleOf(rsa(4096), rsa3072)).toBe('ok');
    const p384: CertificateFacts = { ...certificate, key_algorithm: 'ECDSA-P384' };
    expect(ruleOf(csr(), p384)).toBe('csr_key_too_small');
  });

  it('refuses a CSR whose CN is missing or another name (csr_subject_cn_mismatch)', () => {
    const other = csr({ subject: { commonName: 'evil.example.com', attributes: [{ oid: CN }] } });
    const result = checkCsrAgainstCertificate(other, certificate);
    expect(result).toMatchObject({ ok: false, rule: 'csr_subject_cn_mismatch' });
    expect(!result.ok && result.message).toContain('"evil.example.com"');
    expect(ruleOf(csr({ subject: { attributes: [] } }))).toBe('csr_subject_cn_mismatch');
  });

  it('refuses subject attributes other than the one CN (csr_subject_not_allowed)', () => {
    const withO = csr({
      subject: {
        commonName: 'web.example.com',
        attributes: [
          { shortName: 'O', oid: '2.5.4.10' },
          { shortName: 'CN', oid: CN },
        ],
      },
    });
    const result = checkCsrAgainstCertificate(withO, certificate);
    expect(result).toMatchObject({ ok: false, rule: 'csr_subject_not_allowed' });
    expect(!result.ok && result.message).toContain('O is not allowed');
    const twoCns = csr({
      subject: { commonName: 'web.example.com', attributes: [{ oid: CN }, { oid: CN }] },
    });
    expect(ruleOf(twoCns)).toBe('csr_subject_not_allowed');
  });

  it('refuses a requested name the certificate does not list (csr_san_not_allowed)', () => {
    const result = checkCsrAgainstCertificate(
      csr({ subjectAltNames: [{ type: 'dns', value: 'bank.example.org' }] }),
      certificate,
    );
    expect(result).toMatchObject({ ok: false, rule: 'csr_san_not_allowed' });
    expect(!result.ok && result.message).toContain('dns:bank.example.org');
    expect(ruleOf(csr({ subjectAltNames: [{ type: 'ip', value: '10.0.0.1' }] }))).toBe('csr_san_not_allowed');
    // The same value typed differently is another name.
    expect(ruleOf(csr({ subjectAltNames: [{ type: 'email', value: 'www.example.com' }] }))).toBe(
      'csr_san_not_allowed',
    );
  });

  it('always allows the common name as a DNS name', () => {
    const bare: CertificateFacts = { ...certificate, common_name: 'localhost', names: [] };
    const facts = csr({
      subject: { commonName: 'localhost', attributes: [{ oid: CN }] },
      subjectAltNames: [{ type: 'dns', value: 'localhost' }],
    });
    expect(ruleOf(facts, bare)).toBe('ok');
  });

  it('refuses a CSR asking for a CA certificate (csr_ca_requested)', () => {
    expect(ruleOf(csr({ requestsCa: true }))).toBe('csr_ca_requested');
  });
});

describe(canonicalName.name, () => {
  it('keeps URIs exact and lowers e-mail addresses', () => {
    expect(canonicalName('uri', 'https://A.example/x')).toBe('uri:https://A.example/x');
    expect(canonicalName('email', 'Ops@Example.com')).toBe('email:ops@example.com');
    expect(canonicalName('ip', '10.0.0.1')).toBe('ip:10.0.0.1');
  });
});

describe(agentReportRefusal.name, () => {
  it('lets an agent report every status the job machine allows on a deployment', () => {
    for (const from of JOB_STATUSES) {
      for (const to of AGENT_REPORT_STATUSES) expect(agentReportRefusal('Deployment', from, to)).toBeNull();
    }
  });

  it.each(['Issuance', 'Renewal'] as const)(
    'lets an agent only fail a %s job, and only while it awaits the CSR',
    (type) => {
      expect(agentReportRefusal(type, 'AwaitingCSR', 'Failed')).toBeNull();
      expect(agentReportRefusal(type, 'AwaitingCSR', 'Completed')).toContain(
        'advances when its CSR is issued',
      );
      expect(agentReportRefusal(type, 'AwaitingCSR', 'Running')).toContain('reports only Failed');
      expect(agentReportRefusal(type, 'Pending', 'Failed')).toContain('not the agent');
      expect(agentReportRefusal(type, 'Running', 'Failed')).toContain('not the agent');
    },
  );
});

describe(isAgentWork.name, () => {
  it('is a pending deployment or an issuance/renewal awaiting a CSR, nothing else', () => {
    const work = JOB_TYPES.flatMap((type) =>
      JOB_STATUSES.filter((status) => isAgentWork(type, status)).map((status) => `${type}:${status}`),
    );
    expect(work).toEqual(['Issuance:AwaitingCSR', 'Renewal:AwaitingCSR', 'Deployment:Pending']);
  });
});

describe(agentClaimRefusal.name, () => {
  it('lets the agent that started a job, or any while nobody claimed it, report on it', () => {
    for (const status of JOB_STATUSES) {
      expect(agentClaimRefusal('', status, 'a1')).toBeNull();
      expect(agentClaimRefusal(agentClaimant('a1'), status, 'a1')).toBeNull();
    }
  });

  it('refuses another agent while the job runs, and no longer once it has stopped running', () => {
    for (const status of JOB_STATUSES) {
      expect(agentClaimRefusal(agentClaimant('a2'), status, 'a1')).toBe(
        status === 'Running' ? 'is being run by a2' : null,
      );
    }
  });

  it('refuses every agent on a job a service runs (agentless deployment)', () => {
    for (const status of JOB_STATUSES) {
      expect(agentClaimRefusal('deployment-dispatch', status, 'a1')).toMatch(/run by deployment-dispatch/);
    }
  });
});
