import { Provider } from '@nestjs/common';
import { CrossCertificateRepository } from './local-ca/cross-certificate.repository';
import { CrossCertificateService } from './local-ca/cross-certificate.service';
import { IssuedCertificateLookupHandler } from './issued-certificates/issued-certificate-lookup';
import { issuerConnectors } from './issuer-kinds';
import { IssuanceSecrets } from './issuers/issuance-secrets';
import { IssuerCapabilities } from './issuers/issuer-capabilities';
import { ISSUER_CONNECTORS } from './issuers/issuer-connectors';
import { IssuerRepository } from './issuers/issuer.repository';
import { IssuerService, LOCAL_CA_HOOKS } from './issuers/issuer.service';
import { AcmeAccountStore } from './acme-issuer/acme-account.store';
import { ACME_ACCOUNTS } from './issuers/acme-accounts';
import { CaRepository } from './local-ca/ca.repository';
import { CaExpiryWarnings } from './local-ca/ca-expiry-warnings';
import { IssuerHandlers, LocalCaSeeder } from './local-ca/local-ca.handlers';
import { LocalCaService } from './local-ca/local-ca.service';
import { IssuerRevocation } from './revocations/issuer-revocation';

/** The issuers, the local CA and revocation at the issuer (ADR 0046). */
export const CA_PROVIDERS: Provider[] = [
  IssuanceSecrets,
  IssuerRepository,
  CaRepository,
  AcmeAccountStore,
  { provide: ACME_ACCOUNTS, useExisting: AcmeAccountStore },
  CrossCertificateRepository,
  { provide: ISSUER_CONNECTORS, useFactory: issuerConnectors },
  IssuerCapabilities,
  LocalCaService,
  { provide: LOCAL_CA_HOOKS, useExisting: LocalCaService },
  CrossCertificateService,
  IssuerService,
  IssuerRevocation,
  LocalCaSeeder,
  IssuerHandlers,
  IssuedCertificateLookupHandler,
  CaExpiryWarnings,
];
