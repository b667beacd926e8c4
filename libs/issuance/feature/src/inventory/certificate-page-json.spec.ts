import { certificatePageJson, CertificateTextRow } from './certificate-page-json';

const row = (overrides: Partial<CertificateTextRow> = {}): CertificateTextRow => ({
  id: 'mc-1',
  name: 'one',
  common_name: 'one.example.com',
  sans: '[]',
  environment: '',
  owner_id: '',
  team_id: '',
  issuer_id: 'iss-local',
  renewal_policy_id: 'rp-default',
  profile_id: '',
  agent_id: '',
  source: '',
  status: 'Pending',
  key_algorithm: 'ECDSA-P256',
  tags: '{}',
  not_before: null,
  expires_at: null,
  current_version_id: null,
  last_renewed_at: null,
  revoked_at: null,
  revocation_reason: null,
  created_at: '2026-01-02T03:04:05.678Z',
  updated_at: '2026-01-02T03:04:05.678Z',
  ...overrides,
});

describe(certificatePageJson.name, () => {
  it('writes an empty page as []', () => {
    expect(certificatePageJson([])).toBe('[]');
  });

  it('writes what JSON.stringify writes for the same values, in the DTO field order', () => {
    const rows = [
      row(),
      row({
        id: 'mc-2',
        name: 'quote " backslash \\ newline \n control \u0001 ünï 証',
        sans: '["a.example.com","b.example.com"]',
        tags: '{"b": "x", "a": "y", "10": "ten", "9": "nine"}',
        not_before: '2026-01-01T00:00:00.000Z',
        revoked_at: '2026-02-01T00:00:00.000Z',
        revocation_reason: 'keyCompromise',
        current_version_id: 'v-1',
        status: 'Revoked',
      }),
    ];
    const expected = rows.map((r) => ({ ...r, sans: JSON.parse(r.sans), tags: JSON.parse(r.tags) }));
    expect(certificatePageJson(rows)).toBe(JSON.stringify(expected));
    // jsonb's spacing is gone and integer-like keys come first, as in any JavaScript object.
    expect(certificatePageJson(rows)).toContain('"tags":{"9":"nine","10":"ten","b":"x","a":"y"}');
  });
});
