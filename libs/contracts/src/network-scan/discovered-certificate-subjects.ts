import { RequestContract, shape } from '../messaging/contract';
import { Page } from '../pagination/page';
import {
  ClaimDiscoveredCertificateRequest,
  DiscoveredCertificateDto,
  DiscoveredCertificateIdRequest,
  DiscoveredCertificateSummary,
  DiscoveredCertificateSummaryRequest,
  ListDiscoveredCertificatesRequest,
} from './discovered-certificate.dto';

/** Discovered certificates, triage side: served by health-monitor (ADR 0057). */
export const discoveredCertificateRequestContracts = {
  'health-monitor.v1.list-discovered-certificates': {
    request: ListDiscoveredCertificatesRequest,
    response: shape<Page<DiscoveredCertificateDto>>(),
  },
  'health-monitor.v1.get-discovered-certificate-summary': {
    request: DiscoveredCertificateSummaryRequest,
    response: shape<DiscoveredCertificateSummary>(),
  },
  'health-monitor.v1.get-discovered-certificate': {
    request: DiscoveredCertificateIdRequest,
    response: shape<DiscoveredCertificateDto>(),
  },
  'health-monitor.v1.dismiss-discovered-certificate': {
    request: DiscoveredCertificateIdRequest,
    response: shape<DiscoveredCertificateDto>(),
  },
  'health-monitor.v1.claim-discovered-certificate': {
    request: ClaimDiscoveredCertificateRequest,
    response: shape<DiscoveredCertificateDto>(),
  },
} satisfies Record<string, RequestContract<object, unknown>>;
