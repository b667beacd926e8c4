import { certificatePageJson, CertificateTextRow, isoTimestamp } from './certificate-page-json';

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
  created_at: '2026-01-02 03:04:05.678',
  updated_at: '2026-01-02 03:04:05.678912',
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
        not_before: '2026-01-01 00:00:00',
        revoked_at: '2026-02-01 00:00:00.5',
        revocation_reason: 'keyCompromise',
        current_version_id: 'v-1',
        status: 'Revoked',
      }),
    ];
    const instants: Record<string, string> = {
      '2026-01-02 03:04:05.678': '2026-01-02T03:04:05.678Z',
      '2026-01-02 03:04:05.678912': '2026-01-02T03:04:05.678Z',
      '2026-01-01 00:00:00': '2026-01-01T00:00:00.000Z',
      '2026-02-01 00:00:00.5': '2026-02-01T00:00:00.500Z',
    };
    const at = (text: string | null) => (text === null ? null : instants[text]);
    const expected = rows.map((r) => ({
      ...r,
      sans: JSON.parse(r.sans),
      tags: JSON.parse(r.tags),
      not_before: at(r.not_before),
      expires_at: at(r.expires_at),
      last_renewed_at: at(r.last_renewed_at),
      revoked_at: at(r.revoked_at),
      created_at: at(r.created_at),
      updated_at: at(r.updated_at),
    }));
    expect(certificatePageJson(rows)).toBe(JSON.stringify(expected));
    // jsonb's spacing is gone and integer-like keys come first, as in any JavaScript object.
    expect(certificatePageJson(rows)).toContain('"tags":{"9":"nine","10":"ten","b":"x","a":"y"}');
  });
});

describe(isoTimestamp.name, () => {
  it.each([
    ['2026-11-22 13:07:02', '2026-11-22T13:07:02.000Z'],
    ['2026-11-22 13:07:02.5', '2026-11-22T13:07:02.500Z'],
    ['2026-11-22 13:07:02.05', '2026-11-22T13:07:02.050Z'],
    ['2026-11-22 13:07:02.123', '2026-11-22T13:07:02.123Z'],
    ['2026-11-22 13:07:02.1239', '2026-11-22T13:07:02.123Z'],
    ['2026-11-22 13:07:02.999999', '2026-11-22T13:07:02.999Z'],
    ['0001-01-01 00:00:00', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31 23:59:59.999999', '9999-12-31T23:59:59.999Z'],
    ['10000-01-01 00:00:00', '+010000-01-01T00:00:00.000Z'],
    ['0001-01-01 00:00:00 BC', '0000-01-01T00:00:00.000Z'],
    ['0044-03-15 12:00:00.25 BC', '-000043-03-15T12:00:00.250Z'],
  ])('writes %s as %s, as toISOString() does', (text, iso) => {
    expect(isoTimestamp(text)).toBe(iso);
  });

  it('agrees with toISOString() on instants across the years', () => {
    for (let ms = Date.UTC(1970, 0, 1); ms < Date.UTC(2100, 0, 1); ms += 86_399_123_457) {
      const date = new Date(ms);
      const text = date
        .toISOString()
        .replace('T', ' ')
        .replace('Z', '')
        .replace(/\.?0+$/, '');
      expect(isoTimestamp(text)).toBe(date.toISOString());
    }
  });

  it('refuses what is not a timestamp', () => {
    expect(() => isoTimestamp('infinity')).toThrow('not a timestamp');
    expect(() => isoTimestamp('2026-11-22T13:07:02Z')).toThrow('not a timestamp');
  });
});
