import { ACME_ADMIN_ROUTES } from './acme-routes/acme-admin.routes';
import { ACME_OPERATIONS_ROUTES } from './acme-routes/acme-operations.routes';
import { APPROVAL_ROUTES } from './approvals/approval.routes';
import { AGENT_WORK_ROUTES } from './agent-work/agent-work.routes';
import { AGENT_ROUTES } from './agents/agent.routes';
import { AUDIT_ROUTES } from './audit-routes/audit.routes';
import { API_KEY_ROUTES } from './auth-routes/api-key.routes';
import { BOOTSTRAP_ROUTES } from './auth-routes/bootstrap.routes';
import { BREAKGLASS_CREDENTIAL_ROUTES } from './auth-routes/breakglass.routes';
import { ME_ROUTES } from './auth-routes/me.routes';
import { OIDC_ROUTES } from './auth-routes/oidc.routes';
import { ROLE_ROUTES } from './auth-routes/role.routes';
import { USER_ROUTES } from './auth-routes/user.routes';
import { BULK_ROUTES } from './bulk/bulk.routes';
import { CERTIFICATE_ROUTES } from './certificates/certificate.routes';
import { EST_ADMIN_ROUTES } from './est-routes/est-admin.routes';
import { SCEP_ADMIN_ROUTES } from './scep-routes/scep-admin.routes';
import { INTERMEDIATE_CA_ROUTES, ISSUER_ROUTES } from './issuers/issuer.routes';
import { HEALTH_CHECK_ROUTES } from './health-checks/health-check.routes';
import { SCEP_PROBE_ROUTES } from './health-checks/scep-probe.routes';
import { DISCOVERED_CERTIFICATE_ROUTES } from './health-checks/discovered-certificate.routes';
import { SCAN_TARGET_ROUTES } from './health-checks/scan-target.routes';
import { JOB_ROUTES } from './jobs/job.routes';
import { NOTIFICATION_ROUTES } from './notifications/notification.routes';
import { NOTIFIER_ROUTES } from './notifications/notifier.routes';
import { ROUTING_RULE_ROUTES } from './notifications/routing-rule.routes';
import { CONTACT_ROUTES } from './notifications/contact.routes';
import { DIGEST_ROUTES } from './notifications/digest.routes';
import { OWNER_ROUTES, TEAM_ROUTES } from './owners-teams/owner-team.routes';
import { POLICY_ROUTES } from './policies/policy.routes';
import { PROFILE_ROUTES } from './profiles/profile.routes';
import { REVOCATION_ROUTES } from './revocation-routes/revocation.routes';
import { RENEWAL_POLICY_ROUTES } from './renewal-policies/renewal-policy.routes';
import { STATS_ROUTES } from './stats/stats.routes';
import { SYSTEM_ROUTES } from './system/system.routes';
import { TARGET_ROUTES } from './targets/target.routes';
import { RouteDeclaration } from './routes/route-declaration';

/**
 * Every declared gateway route (ADR 0014, 0035): the routes that only check their caller and
 * forward to one bus subject. The rest are Nest controllers (streams, cookies, files,
 * idempotency, special handling); routeTable() lists both.
 */
export const DECLARED_ROUTES: readonly RouteDeclaration[] = [
  // Literal /certificates/bulk-* paths: before any /certificates/:id route.
  ...BULK_ROUTES,
  ...CERTIFICATE_ROUTES,
  ...RENEWAL_POLICY_ROUTES,
  ...TEAM_ROUTES,
  ...OWNER_ROUTES,
  ...STATS_ROUTES,
  ...JOB_ROUTES,
  ...AGENT_WORK_ROUTES,
  ...APPROVAL_ROUTES,
  ...POLICY_ROUTES,
  ...AGENT_ROUTES,
  ...TARGET_ROUTES,
  ...ISSUER_ROUTES,
  ...INTERMEDIATE_CA_ROUTES,
  ...PROFILE_ROUTES,
  ...SYSTEM_ROUTES,
  ...BOOTSTRAP_ROUTES,
  ...ME_ROUTES,
  ...API_KEY_ROUTES,
  ...ROLE_ROUTES,
  ...USER_ROUTES,
  ...BREAKGLASS_CREDENTIAL_ROUTES,
  ...OIDC_ROUTES,
  ...AUDIT_ROUTES,
  ...REVOCATION_ROUTES,
  ...HEALTH_CHECK_ROUTES,
  ...NOTIFICATION_ROUTES,
  ...NOTIFIER_ROUTES,
  ...ROUTING_RULE_ROUTES,
  ...CONTACT_ROUTES,
  ...DIGEST_ROUTES,
  ...SCEP_PROBE_ROUTES,
  ...DISCOVERED_CERTIFICATE_ROUTES,
  ...SCAN_TARGET_ROUTES,
  ...EST_ADMIN_ROUTES,
  ...SCEP_ADMIN_ROUTES,
  ...ACME_ADMIN_ROUTES,
  ...ACME_OPERATIONS_ROUTES,
];
