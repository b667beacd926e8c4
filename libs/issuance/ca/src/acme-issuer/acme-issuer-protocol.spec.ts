import { createCsr, IssuerError, parseCsr, SoftwareKeyProvider } from '@certlane/pki';
import { acmeFailure, challengeRecordName, inZone, orderIdentifiers } from './acme-issuer-protocol';

describe(orderIdentifiers.name, () => {
  it("orders the CSR's DNS names and IP addresses, once each, or the names the caller certifies", async () => {
    const { signer } = await new SoftwareKeyProvider().generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = parseCsr(
      (
        await createCsr({
          subject: [['CN', 'a.example']],
          signer,
          subjectAltNames: [
            { type: 'dns', value: 'a.example' },
            { type: 'ip', value: '192.0.2.1' },
            { type: 'email', value: 'ops@example.com' },
            { type: 'dns', value: 'a.example' },
          ],
        })
      ).pem,
    );
    const request = { csrPem: '', idempotencyKey: '', profile: {} };
    expect(orderIdentifiers(request, csr)).toEqual([
      { type: 'dns', value: 'a.example' },
      { type: 'ip', value: '192.0.2.1' },
    ]);
    expect(
      orderIdentifiers(
        { ...request, profile: { subjectAltNames: [{ type: 'dns', value: 'b.example' }] } },
        csr,
      ),
    ).toEqual([{ type: 'dns', value: 'b.example' }]);
  });
});

describe('challenge records', () => {
  it("RFC 8555 8.4: a wildcard's record is its base name's", () => {
    expect(challengeRecordName('www.example.com')).toBe('_acme-challenge.www.example.com');
    expect(challengeRecordName('*.example.com')).toBe('_acme-challenge.example.com');
  });

  it('knows a name of the zone from one outside it', () => {
    expect(inZone('_acme-challenge.www.example.com', 'example.com')).toBe(true);
    expect(inZone('EXAMPLE.com.', 'example.com')).toBe(true);
    expect(inZone('_acme-challenge.badexample.com', 'example.com')).toBe(false);
    expect(inZone('example.org', 'example.com')).toBe(false);
  });
});

describe(acmeFailure.name, () => {
  it('reads no answer as unavailable, a directory or account failure as misconfigured, the rest as refused', () => {
    expect(
      acmeFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'order', 'i')
        .kind,
    ).toBe('unavailable');
    expect(
      acmeFailure(Object.assign(new Error('boom'), { response: { status: 503 } }), 'finalize', 'i').kind,
    ).toBe('unavailable');
    expect(acmeFailure(new Error('EAB required'), 'account', 'i')).toEqual(
      new IssuerError('misconfigured', 'i: account: EAB required'),
    );
    expect(acmeFailure(new Error('no TXT record found'), 'validation', 'i')).toEqual(
      new IssuerError('rejected', 'i: validation: no TXT record found'),
    );
    const own = new IssuerError('unsupported', 'x');
    expect(acmeFailure(own, 'order', 'i')).toBe(own);
  });

  it('shortens a long detail and strips control characters', () => {
    const failure = acmeFailure(new Error(`a\n${'b'.repeat(500)}`), 'order', 'i');
    expect(failure.message).not.toContain('\n');
    expect(failure.message.length).toBeLessThan(330);
  });
});
