import { CERTIFICATE_STATUSES, CertificateStatus } from '@certlane/contracts';
import { deploymentAgent, deployRefusal, DeployTargetFacts } from './deployment';

const target = (overrides: Partial<DeployTargetFacts> = {}): DeployTargetFacts => ({
  id: 'tg-web',
  agent_id: 'edge-1',
  retired: false,
  ...overrides,
});
const certificate = (status: CertificateStatus, agent_id = 'edge-1') => ({ status, agent_id });

describe(deployRefusal.name, () => {
  it.each(CERTIFICATE_STATUSES.map((status) => [status]))(
    'decides a deploy of a %s certificate',
    (status) => {
      const refused = ['Revoked', 'Archived', 'Expired'].includes(status);
      for (const to of [null, target()]) {
        expect(deployRefusal(certificate(status), to)?.refusal ?? 'deployable').toBe(
          refused ? 'certificate_not_deployable' : 'deployable',
        );
      }
    },
  );

  it('refuses a retired target', () => {
    expect(deployRefusal(certificate('Active'), target({ retired: true }))).toEqual({
      refusal: 'target_retired',
      message: 'target "tg-web" is retired',
    });
  });

  it("refuses a target run by another agent than the certificate's", () => {
    expect(deployRefusal(certificate('Active', 'edge-2'), target())).toMatchObject({
      refusal: 'target_agent_mismatch',
    });
  });

  it('accepts a target of the agent of the certificate, a certificate without an agent, and an agentless target', () => {
    expect(deployRefusal(certificate('Active'), target())).toBeNull();
    expect(deployRefusal(certificate('Expiring', ''), target())).toBeNull();
    expect(deployRefusal(certificate('Active'), target({ agent_id: null }))).toBeNull();
  });

  it('names the certificate status before the target', () => {
    expect(deployRefusal(certificate('Revoked', 'edge-2'), target({ retired: true }))?.refusal).toBe(
      'certificate_not_deployable',
    );
  });
});

describe(deploymentAgent.name, () => {
  it("is the target's agent when it names one, else the certificate's", () => {
    expect(deploymentAgent({ agent_id: '' }, target())).toBe('edge-1');
    expect(deploymentAgent({ agent_id: 'edge-1' }, target({ agent_id: null }))).toBe('edge-1');
    expect(deploymentAgent({ agent_id: 'edge-1' }, null)).toBe('edge-1');
    expect(deploymentAgent({ agent_id: '' }, null)).toBe('');
  });
});
