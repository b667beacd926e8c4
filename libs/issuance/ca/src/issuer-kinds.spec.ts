import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { IssuerConnectorFactory } from '@certlane/pki';
import { LocalCaConnector, localCaConnectorFactory } from './local-ca/local-ca-connector';
import { IssuerDependencies } from './issuers/issuer-dependencies';
import { IssuerConnectorRegistry } from './issuers/issuer-connector-registry';
import { issuerConnectors } from './issuer-kinds';

const dependencies: IssuerDependencies = {
  issuerId: 'iss-test',
  revocationBaseUrl: 'https://pki.example.com',
  issuerScriptsDirectory: '/etc/certlane/issuer-scripts',
  outboundTls: { ca: [], rejectUnauthorized: true },
  acmeAccounts: {
    accountFor: () => Promise.reject(new Error('not needed')),
    registered: () => Promise.resolve(),
  },
  issuingCa: () => Promise.reject(new Error('not needed')),
  recordRevocations: () => Promise.reject(new Error('not needed')),
  issuedSerials: () => Promise.reject(new Error('not needed')),
};

function fakeFactory(kind: string): IssuerConnectorFactory<unknown, IssuerDependencies> {
  return { ...localCaConnectorFactory, kind } as IssuerConnectorFactory<unknown, IssuerDependencies>;
}

describe('IssuerConnectorRegistry', () => {
  it('finds the local CA as the factory of kind local_ca', () => {
    const registry = issuerConnectors();
    expect(registry.kinds()).toEqual(['local_ca', 'script', 'vault_pki', 'acme']);
    const factory = registry.factoryFor({ id: 'iss-local', kind: 'local_ca' }, 'issue');
    expect(factory.kind).toBe('local_ca');
    expect(factory.create(factory.validateConfig({}), dependencies)).toBeInstanceOf(LocalCaConnector);
  });

  it('answers 501 not_implemented naming the issuer, its kind and the operation for a kind without a connector', () => {
    const registry = issuerConnectors();
    expect(registry.has('google_cas')).toBe(false);
    let thrown: unknown;
    try {
      registry.factoryFor({ id: 'iss-gcp', kind: 'google_cas' }, 'issue');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CertlaneError);
    expect((thrown as CertlaneError).code).toBe(ErrorCode.NotImplemented);
    expect((thrown as CertlaneError).message).toBe(
      'issuer iss-gcp is of type google_cas, which cannot issue yet',
    );
  });

  it('lets a further kind plug in beside the local CA', () => {
    const registry = issuerConnectors().register(fakeFactory('aws_private_ca'));
    expect(registry.has('aws_private_ca')).toBe(true);
    expect(registry.factoryFor({ id: 'iss-aws', kind: 'aws_private_ca' }, 'issue').kind).toBe(
      'aws_private_ca',
    );
  });

  it('refuses a kind registered twice', () => {
    const registry = new IssuerConnectorRegistry<IssuerDependencies>().register(localCaConnectorFactory);
    expect(() => registry.register(localCaConnectorFactory)).toThrow(
      'issuer kind local_ca is registered twice',
    );
  });
});

describe('localCaConnectorFactory', () => {
  it('reads the validity limits and the publication base of the issuer config, and shows them as stored', () => {
    const config = localCaConnectorFactory.validateConfig({
      default_validity_days: 30,
      max_validity_days: 90,
      publication_base_url: '',
      organization: 'Example',
    });
    expect(config).toEqual({ defaultValidityDays: 30, maxValidityDays: 90, publicationBaseUrl: undefined });
    expect(localCaConnectorFactory.redact(config)).toEqual({
      default_validity_days: 30,
      max_validity_days: 90,
      publication_base_url: undefined,
    });
  });
});
