/**
 * The list pages the generic resource table renders, one per list operation of the API
 * description. Each names its API path, columns and the filters the operation accepts.
 */
export type CellKind = 'text' | 'time' | 'expiry' | 'status' | 'bool' | 'count';

export interface ResourceColumn {
  key: string;
  label: string;
  kind?: CellKind;
}

export interface ResourceFilter {
  name: string;
  label: string;
  options?: readonly string[];
}

export interface ResourcePageSpec {
  path: string;
  title: string;
  apiPath: string;
  /** Answered as a page envelope ({data, total}); otherwise a plain array or {data}. */
  paged: boolean;
  columns: ResourceColumn[];
  filters?: ResourceFilter[];
  empty: string;
}

export const RESOURCE_PAGES: ResourcePageSpec[] = [
  {
    path: 'agents',
    title: 'Agents',
    apiPath: '/api/v1/agents',
    paged: true,
    columns: [
      { key: 'name', label: 'Name' },
      { key: 'hostname', label: 'Host' },
      { key: 'status', label: 'Status', kind: 'status' },
      { key: 'last_heartbeat_at', label: 'Last heartbeat', kind: 'time' },
      { key: 'version', label: 'Version' },
    ],
    empty: 'No agents yet. Register one with POST /api/v1/agents and run certlane-agent near your targets.',
  },
  {
    path: 'jobs',
    title: 'Jobs',
    apiPath: '/api/v1/jobs',
    paged: true,
    columns: [
      { key: 'id', label: 'Job' },
      { key: 'type', label: 'Type' },
      { key: 'status', label: 'Status', kind: 'status' },
      { key: 'certificate_id', label: 'Certificate' },
      { key: 'attempts', label: 'Attempts', kind: 'count' },
      { key: 'last_error', label: 'Last error' },
      { key: 'created_at', label: 'Created', kind: 'time' },
    ],
    filters: [
      {
        name: 'status',
        label: 'Status',
        options: [
          'Pending',
          'AwaitingCSR',
          'AwaitingApproval',
          'Running',
          'Completed',
          'Failed',
          'Cancelled',
        ],
      },
      { name: 'type', label: 'Type', options: ['Issuance', 'Renewal', 'Deployment', 'Validation'] },
      { name: 'certificate_id', label: 'Certificate id' },
    ],
    empty: 'No jobs match. Jobs appear when certificates are issued, renewed or deployed.',
  },
  {
    path: 'approvals',
    title: 'Approvals',
    apiPath: '/api/v1/approvals',
    paged: true,
    columns: [
      { key: 'id', label: 'Request' },
      { key: 'approval_kind', label: 'Kind' },
      { key: 'status', label: 'Status', kind: 'status' },
      { key: 'requested_by', label: 'Requested by' },
      { key: 'created_at', label: 'Created', kind: 'time' },
    ],
    filters: [
      { name: 'status', label: 'Status', options: ['pending', 'approved', 'rejected'] },
      { name: 'approval_kind', label: 'Kind', options: ['cert_issuance', 'profile_edit'] },
    ],
    empty: 'No approval requests. Profiles that require approval send their issuances here.',
  },
  {
    path: 'issuers',
    title: 'Issuers',
    apiPath: '/api/v1/issuers',
    paged: true,
    columns: [
      { key: 'name', label: 'Name' },
      { key: 'type', label: 'Type' },
      { key: 'issuing_ca_id', label: 'Issuing CA' },
      { key: 'created_at', label: 'Created', kind: 'time' },
    ],
    empty: 'No issuers. Create one (a local CA is the quickest start) with POST /api/v1/issuers.',
  },
  {
    path: 'intermediate-cas',
    title: 'Intermediate CAs',
    apiPath: '/api/v1/intermediate-cas',
    paged: true,
    columns: [
      { key: 'name', label: 'Name' },
      { key: 'state', label: 'State', kind: 'status' },
      { key: 'parent_ca_id', label: 'Parent' },
      { key: 'not_after', label: 'Expires', kind: 'expiry' },
    ],
    empty: 'No CAs yet. Create a root, then children under it.',
  },
  {
    path: 'targets',
    title: 'Targets',
    apiPath: '/api/v1/targets',
    paged: true,
    columns: [
      { key: 'name', label: 'Name' },
      { key: 'type', label: 'Type' },
      { key: 'agent_id', label: 'Agent' },
      { key: 'created_at', label: 'Created', kind: 'time' },
    ],
    empty: 'No deployment targets. Add one to deploy certificates through an agent.',
  },
  {
    path: 'profiles',
    title: 'Profiles',
    apiPath: '/api/v1/profiles',
    paged: true,
    columns: [
      { key: 'name', label: 'Name' },
      { key: 'id', label: 'Id' },
      { key: 'created_at', label: 'Created', kind: 'time' },
    ],
    empty: 'No profiles.',
  },
  {
    path: 'policies',
    title: 'Policy rules',
    apiPath: '/api/v1/policies',
    paged: true,
    columns: [
      { key: 'name', label: 'Name' },
      { key: 'type', label: 'Type' },
      { key: 'severity', label: 'Severity' },
      { key: 'enabled', label: 'Enabled', kind: 'bool' },
    ],
    empty: 'No policy rules.',
  },
  {
    path: 'renewal-policies',
    title: 'Renewal policies',
    apiPath: '/api/v1/renewal-policies',
    paged: true,
    columns: [
      { key: 'name', label: 'Name' },
      { key: 'renewal_window_days', label: 'Window (days)', kind: 'count' },
      { key: 'auto_renew', label: 'Auto-renew', kind: 'bool' },
    ],
    empty: 'No renewal policies.',
  },
  {
    path: 'owners',
    title: 'Owners',
    apiPath: '/api/v1/owners',
    paged: true,
    columns: [
      { key: 'name', label: 'Name' },
      { key: 'email', label: 'Email' },
      { key: 'team_id', label: 'Team' },
    ],
    empty: 'No owners.',
  },
  {
    path: 'teams',
    title: 'Teams',
    apiPath: '/api/v1/teams',
    paged: true,
    columns: [
      { key: 'name', label: 'Name' },
      { key: 'description', label: 'Description' },
    ],
    empty: 'No teams.',
  },
  {
    path: 'audit',
    title: 'Audit',
    apiPath: '/api/v1/audit',
    paged: true,
    columns: [
      { key: 'seq', label: '#', kind: 'count' },
      { key: 'occurred_at', label: 'When', kind: 'time' },
      { key: 'actor_id', label: 'Actor' },
      { key: 'action', label: 'Action' },
      { key: 'resource_type', label: 'Resource' },
      { key: 'resource_id', label: 'Id' },
      { key: 'outcome', label: 'Outcome', kind: 'status' },
    ],
    empty: 'No audit events match.',
  },
];
