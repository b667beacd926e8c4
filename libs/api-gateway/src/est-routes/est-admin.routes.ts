import {
  CreateEstKeyEncryptionKeyRequest,
  CreateEstProfileRequest,
  ListEstKeyEncryptionKeysRequest,
  UpdateEstProfileRequest,
} from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/admin/est';

/**
 * /api/v1/admin/est/* (spec 4.9; ADR 0058): EST profiles, trust and serverkeygen key-encryption
 * keys, admins only, served by protocol-frontends. A key-encryption key is answered once, at creation.
 * Spec 4.9 admits only GET and POST on admin routes, so update, delete and revoke are POSTs on the
 * resource, as for the SCEP profiles.
 */
export const EST_ADMIN_ROUTES = [
  declareRoute({
    method: 'GET',
    path: `${BASE}/profiles`,
    adminOnly: true,
    status: 200,
    errors: [401, 403],
    subject: 'protocol-frontends.v1.est-list-profiles',
    summary: 'EST profiles with their per-profile counters snapshot',
    response: 'EstProfileList',
    audit: null,
    payload: () => ({}),
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/profiles`,
    adminOnly: true,
    status: 201,
    errors: [400, 401, 403, 409],
    subject: 'protocol-frontends.v1.est-create-profile',
    body: CreateEstProfileRequest,
    response: 'EstProfileDto',
    audit: 'est_profile.created',
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/profiles/:id`,
    adminOnly: true,
    status: 200,
    errors: [400, 401, 403, 404],
    subject: 'protocol-frontends.v1.est-update-profile',
    summary: 'Updates an EST profile (the fields given replace the stored ones; path_id is fixed)',
    body: UpdateEstProfileRequest,
    response: 'EstProfileDto',
    audit: 'est_profile.updated',
    payload: ({ params, body }) => ({ ...body, id: params.id }),
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/profiles/:id/delete`,
    adminOnly: true,
    status: 204,
    errors: [400, 401, 403, 404],
    subject: 'protocol-frontends.v1.est-delete-profile',
    summary: 'Deletes an EST profile and its counters',
    optionalBody: true,
    response: null,
    audit: 'est_profile.deleted',
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/reload-trust`,
    adminOnly: true,
    status: 200,
    errors: [401, 403],
    subject: 'protocol-frontends.v1.est-reload-trust',
    summary: 'Re-reads the EST trust bundle files; a bad file keeps the previous anchors',
    optionalBody: true,
    response: 'EstTrustReloadResult',
    audit: 'est_trust_anchor_reloaded',
    payload: () => ({}),
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/key-encryption-keys`,
    adminOnly: true,
    status: 200,
    errors: [400, 401, 403],
    subject: 'protocol-frontends.v1.est-list-key-encryption-keys',
    summary:
      'serverkeygen key-encryption keys (RFC 7030 4.4.1.1), newest first, optionally of one profile or status (never the keys)',
    query: ListEstKeyEncryptionKeysRequest,
    response: 'Page<EstKeyEncryptionKeyDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/key-encryption-keys`,
    adminOnly: true,
    status: 201,
    // 404: the profile_id names no EST profile.
    errors: [400, 401, 403, 404],
    subject: 'protocol-frontends.v1.est-create-key-encryption-key',
    summary:
      "Creates an AES-256 key-encryption key for an EST profile's serverkeygen (DecryptKeyIdentifier, RFC 7030 4.4.1.1); the key is in this answer only",
    body: CreateEstKeyEncryptionKeyRequest,
    response: 'EstKeyEncryptionKeyCreated',
    audit: 'est_key_encryption_key.created',
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/key-encryption-keys/:id/revoke`,
    adminOnly: true,
    status: 204,
    errors: [400, 401, 403, 404],
    subject: 'protocol-frontends.v1.est-revoke-key-encryption-key',
    summary: 'Revokes a key-encryption key: serverkeygen refuses its id from then on',
    optionalBody: true,
    response: null,
    audit: 'est_key_encryption_key.revoked',
    payload: ({ params }) => ({ id: params.id }),
  }),
];
