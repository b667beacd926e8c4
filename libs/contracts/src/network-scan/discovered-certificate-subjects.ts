import { EventContract, RequestContract, shape } from '../messaging/contract';
import { Page } from '../pagination/page';
import { AgentDiscoveryAccepted, PushAgentDiscoveryRequest } from './agent-discovery.dto';
import {
  BulkClaimDiscoveredCertificatesRequest,
  BulkDismissDiscoveredCertificatesRequest,
  ClaimDiscoveredCertificateRequest,
  DiscoveredCertificateDto,
  DiscoveredCertificateFound,
  DiscoveredCertificateIdRequest,
  DiscoveredCertificateSummary,
  DiscoveredCertificateSummaryRequest,
  DiscoveryBulkResult,
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
  'health-monitor.v1.bulk-dismiss-discovered-certificates': {
    request: BulkDismissDiscoveredCertificatesRequest,
    response: shape<DiscoveryBulkResult>(),
  },
  'health-monitor.v1.bulk-claim-discovered-certificates': {
    request: BulkClaimDiscoveredCertificatesRequest,
    response: shape<DiscoveryBulkResult>(),
  },
  /** An agent's filesystem discovery push (spec 4.7 note; ADR 0063). */
  'health-monitor.v1.push-agent-discovery': {
    request: PushAgentDiscoveryRequest,
    response: shape<AgentDiscoveryAccepted>(),
  },
} satisfies Record<string, RequestContract<object, unknown>>;

/** A certificate seen for the first time (ADR 0062): through the health monitor's outbox. */
export const discoveredCertificateEventContracts = {
  'health-monitor.v1.discovered-certificate.found': { payload: shape<DiscoveredCertificateFound>() },
} satisfies Record<string, EventContract<unknown>>;
