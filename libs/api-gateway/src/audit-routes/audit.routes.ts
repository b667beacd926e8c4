import { AuditListQuery } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

/** Walking a long chain takes longer than an ordinary request. */
const VERIFY_TIMEOUT_MS = 300_000;

/**
 * The audit log (spec 4.10, 6.1), stored by the auth service: the list and the chain check. The
 * export streams: AuditController's.
 */
export const AUDIT_ROUTES = [
  /** A page of events for the GUI, newest first. */
  declareRoute({
    method: 'GET',
    path: '/api/v1/audit',
    permission: 'audit.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'auth.v1.list-audit-events',
    query: AuditListQuery,
    response: 'Page<AuditEventDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  /** Walks the hash chain and reports the first broken link. */
  declareRoute({
    method: 'GET',
    path: '/api/v1/audit/verify',
    permission: 'audit.read',
    status: 200,
    errors: [401, 403],
    subject: 'auth.v1.verify-audit-chain',
    response: 'AuditChainVerification',
    audit: null,
    timeoutMs: VERIFY_TIMEOUT_MS,
    payload: () => ({}),
  }),
];
