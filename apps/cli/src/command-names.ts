import { OPERATIONS, OperationId } from '@certlane/api-client';

/** Where an operation lives in the command tree: `certlane <group> [<subgroup>] <verb>`. */
export interface CommandName {
  words: readonly string[];
  operationId: OperationId;
}

/** The API tag -> the command group (kubectl-style short names where operators expect one). */
const GROUP_OF_TAG: Readonly<Record<string, string>> = {
  certificates: 'certs',
  'openapi.json': 'api-description',
  'openapi.yaml': 'api-description',
};

/** `/api/v1/auth/<segment>` -> the auth subgroup; absent: the segment is the verb itself. */
const AUTH_SUBGROUPS: Readonly<Record<string, string>> = {
  'api-keys': 'api-keys',
  keys: 'keys',
  roles: 'roles',
  grants: 'grants',
  sessions: 'sessions',
  users: 'users',
  breakglass: 'break-glass',
  bootstrap: 'bootstrap',
};

/**
 * Names the derivation below would get wrong or unidiomatic. Every other operation is named
 * by rule, so a new operation gets a command without an edit here (the parity test checks).
 */
export const OVERRIDES: Partial<Record<OperationId, readonly string[]>> = {
  archiveCertificate: ['certs', 'delete'],
  exportCertificatePem: ['certs', 'export', 'pem'],
  exportCertificatePkcs12: ['certs', 'export', 'pkcs12'],
  bulkRenewCertificates: ['bulk', 'renew'],
  bulkRevokeCertificates: ['bulk', 'revoke'],
  bulkReassignCertificates: ['bulk', 'reassign'],
  estBulkRevokeCertificates: ['est', 'bulk-revoke'],
  getAgentCertificate: ['agents', 'certificate'],
  getApiDescription: ['api-description', 'json'],
  getApiDescriptionYaml: ['api-description', 'yaml'],
  getVersion: ['version'],
  getBootstrapStatus: ['auth', 'bootstrap', 'status'],
  bootstrap: ['auth', 'bootstrap', 'consume'],
  revokeOtherSessions: ['auth', 'sessions', 'revoke-others'],
  revokeRole: ['auth', 'grants', 'revoke'],
  // Two resources under /network-scan: a subgroup each, as `auth keys` has.
  listScanTargets: ['network-scan', 'targets', 'list'],
  getScanTarget: ['network-scan', 'targets', 'get'],
  createScanTarget: ['network-scan', 'targets', 'create'],
  updateScanTarget: ['network-scan', 'targets', 'update'],
  deleteScanTarget: ['network-scan', 'targets', 'delete'],
  triggerScanTarget: ['network-scan', 'targets', 'trigger'],
  listNetworkScans: ['network-scan', 'scans', 'list'],
  getNetworkScan: ['network-scan', 'scans', 'get'],
  // Attempts are listed, never fetched one by one: a resource without {id} routes.
  acmeListValidationAttempts: ['acme', 'validation-attempts', 'list'],
  // OIDC (ADR 0081): two resources under /auth/oidc, a subgroup each; the browser handshake apart.
  listOidcProviders: ['auth', 'oidc-providers', 'list'],
  createOidcProvider: ['auth', 'oidc-providers', 'create'],
  updateOidcProvider: ['auth', 'oidc-providers', 'update'],
  deleteOidcProvider: ['auth', 'oidc-providers', 'delete'],
  refreshOidcProvider: ['auth', 'oidc-providers', 'refresh'],
  getOidcJwksStatus: ['auth', 'oidc-providers', 'jwks-status'],
  testOidcProvider: ['auth', 'oidc-providers', 'test'],
  listOidcGroupMappings: ['auth', 'oidc-group-mappings', 'list'],
  createOidcGroupMapping: ['auth', 'oidc-group-mappings', 'create'],
  deleteOidcGroupMapping: ['auth', 'oidc-group-mappings', 'delete'],
  oidcLogin: ['auth', 'oidc', 'login'],
  oidcCallback: ['auth', 'oidc', 'callback'],
  oidcBackChannelLogout: ['auth', 'oidc', 'back-channel-logout'],
};

/** Words that name the resource itself, dropped from a verb (`rotateApiKey` in `auth api-keys` -> `rotate`). */
const NOUN_ALIASES: Readonly<Record<string, readonly string[]>> = {
  certs: ['certificate', 'certificates', 'managed'],
  'break-glass': ['breakglass', 'credential', 'credentials'],
};

/** `getRuntimeConfig` -> ['get', 'runtime', 'config']. */
function wordsOf(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(' ');
}

/** The group and subgroup of an operation from its tag and path. */
export function placeOf(tag: string, path: string): string[] {
  const admin = /^\/api\/v1\/admin\/([^/]+)\/([^/]+)/.exec(path);
  // `/api/v1/admin/est/profiles/{id}` -> `est profiles`; `/api/v1/admin/est/reload-trust` -> `est`.
  if (admin) return ADMIN_COLLECTIONS.has(`${admin[1]}/${admin[2]}`) ? [admin[1], admin[2]] : [admin[1]];
  const group = GROUP_OF_TAG[tag] ?? tag;
  if (group !== 'auth') return [group];
  const segment = path.replace(/^\/api\/v1\/auth\/|^\/auth\//, '').split('/')[0];
  const subgroup = AUTH_SUBGROUPS[segment];
  return subgroup ? ['auth', subgroup] : ['auth'];
}

/** `area/segment` under /api/v1/admin/ that some operation addresses by id: a resource collection. */
const ADMIN_COLLECTIONS = new Set(
  Object.values(OPERATIONS).flatMap(({ path }) => {
    const match = /^\/api\/v1\/admin\/([^/]+)\/([^/]+)\/\{/.exec(path);
    return match ? [`${match[1]}/${match[2]}`] : [];
  }),
);

function nounsOf(place: readonly string[]): Set<string> {
  const nouns = new Set<string>();
  for (const name of place) {
    for (const word of name.split('-')) nouns.add(word).add(word.replace(/ies$/, 'y').replace(/s$/, ''));
    for (const alias of NOUN_ALIASES[name] ?? []) nouns.add(alias);
  }
  return nouns;
}

/**
 * The verb by rule. Plain CRUD by method and path shape (`GET /x` list, `GET /x/{id}` get,
 * `POST /x` create, `PUT` update, and `POST /x/{id}` update: spec 4.9 allows only GET and POST
 * on admin routes, so an admin resource is updated by a POST on it); a GET below the resource by
 * its path (`GET /jobs/{id}/verification` -> `verification`); anything else by the operationId
 * without the resource's nouns (`retireAgent` -> `retire`, `rotateApiKey` -> `rotate`;
 * `POST /x/{id}/delete` -> `delete`).
 */
export function verbOf(operationId: string, method: string, path: string, place: readonly string[]): string {
  const segments = path.split('/').filter(Boolean);
  const isParam = (segment: string) => segment.startsWith('{');
  const base = segments.indexOf('v1') + 1;
  const afterPlace = segments.slice(base + place.length + (segments[base] === 'admin' ? 1 : 0));
  const nouns = nounsOf(place);
  const literalTail = afterPlace.filter((segment) => !isParam(segment) && !nouns.has(segment));
  if (method === 'GET') {
    if (literalTail.length > 0) return literalTail.join('-');
    return afterPlace.some(isParam) ? 'get' : 'list';
  }
  if (literalTail.length === 0 && method === 'POST') return afterPlace.some(isParam) ? 'update' : 'create';
  if (literalTail.length === 0 && method === 'PUT') return 'update';
  return wordsOf(operationId)
    .filter((word) => !nouns.has(word))
    .join('-');
}

/** Every operation of the API description with its command words. */
export function commandNames(): CommandName[] {
  return (Object.keys(OPERATIONS) as OperationId[]).map((operationId) => {
    const override = OVERRIDES[operationId];
    if (override) return { operationId, words: override };
    const { tag, method, path } = OPERATIONS[operationId];
    const place = placeOf(tag, path);
    return { operationId, words: [...place, verbOf(operationId, method, path, place)] };
  });
}
