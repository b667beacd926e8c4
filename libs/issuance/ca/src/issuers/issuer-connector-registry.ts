import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { IssuerConnectorFactory } from '@certlane/pki';

/** The issuer an operation is for, as the registry needs it. */
export interface RegisteredIssuer {
  id: string;
  kind: string;
}

/**
 * Issuer kind -> connector factory (issue 16 point 4, ADR 0046): the one way issuance finds the
 * connector that talks to a CA. The local CA is registered as `local_ca`; each further kind plugs
 * in with its own factory. A kind without a factory cannot issue, revoke at the CA or hand out CA
 * material: 501 not_implemented, naming the issuer, its kind and what was asked.
 */
export class IssuerConnectorRegistry<Dependencies> {
  private readonly factories = new Map<string, IssuerConnectorFactory<unknown, Dependencies>>();

  register<Config>(factory: IssuerConnectorFactory<Config, Dependencies>): this {
    if (this.factories.has(factory.kind)) {
      throw new Error(`issuer kind ${factory.kind} is registered twice`);
    }
    this.factories.set(factory.kind, factory as IssuerConnectorFactory<unknown, Dependencies>);
    return this;
  }

  /** Whether the kind has a connector (a kind without one records revocations locally only). */
  has(kind: string): boolean {
    return this.factories.has(kind);
  }

  kinds(): string[] {
    return [...this.factories.keys()];
  }

  /** The factory of the issuer's kind; 501 not_implemented when there is none. `what`: "issue", "revoke"... */
  factoryFor(issuer: RegisteredIssuer, what: string): IssuerConnectorFactory<unknown, Dependencies> {
    const factory = this.factories.get(issuer.kind);
    if (!factory) throw unsupportedKind(issuer, what);
    return factory;
  }
}

export function unsupportedKind(issuer: RegisteredIssuer, what: string): CertlaneError {
  return new CertlaneError(
    ErrorCode.NotImplemented,
    `issuer ${issuer.id} is of type ${issuer.kind}, which cannot ${what} yet`,
  );
}
