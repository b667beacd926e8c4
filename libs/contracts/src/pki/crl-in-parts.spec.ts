import { CertlaneError } from '../errors/certlane-error';
import { ErrorCode } from '../errors/error-codes';
import { AskForCrl, CRL_READ_ATTEMPTS, readCrlInParts } from './crl-in-parts';
import { CrlDocument, GetCrlRequest } from './revocation-service.dto';

/** A stored CRL as the revocation service would send it in parts of `partBytes`. */
function crl(number: number, bytes: Buffer) {
  return { number: String(number), bytes };
}

/**
 * A fake revocation.v1.get-crl: `current()` is the CRL stored when a request arrives (a test can
 * replace it between parts), cut into parts of `partBytes` as CrlPublisher.currentPart does.
 */
function fakeService(partBytes: number, current: () => { number: string; bytes: Buffer }) {
  const requests: GetCrlRequest[] = [];
  const ask: AskForCrl = async (request) => {
    requests.push(request);
    const stored = current();
    const base: CrlDocument = {
      issuer_id: request.issuer_id,
      ca_id: 'ca-1234abcd',
      crl_number: stored.number,
      this_update: '2026-01-01T00:00:00.000Z',
      next_update: '2026-01-02T00:00:00.000Z',
      crl_base64: stored.bytes.toString('base64'),
    };
    if (request.part === undefined) return base;
    const parts = Math.max(1, Math.ceil(stored.bytes.length / partBytes));
    const slice = stored.bytes.subarray(request.part * partBytes, (request.part + 1) * partBytes);
    return { ...base, crl_base64: slice.toString('base64'), part: request.part, parts };
  };
  return { ask, requests };
}

describe('readCrlInParts: a CRL in parts over the bus (review H2)', () => {
  const der = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

  it('asks for part 0, then the other parts of the CA part 0 named, and joins them', async () => {
    const { ask, requests } = fakeService(300, () => crl(7, der));
    const fetched = await readCrlInParts(ask, { issuer_id: 'iss-local' });
    expect(fetched.der.equals(der)).toBe(true);
    expect(fetched.document).toEqual({
      issuer_id: 'iss-local',
      ca_id: 'ca-1234abcd',
      crl_number: '7',
      this_update: '2026-01-01T00:00:00.000Z',
      next_update: '2026-01-02T00:00:00.000Z',
    });
    expect(requests).toEqual([
      { issuer_id: 'iss-local', part: 0 },
      { issuer_id: 'iss-local', ca_id: 'ca-1234abcd', part: 1 },
      { issuer_id: 'iss-local', ca_id: 'ca-1234abcd', part: 2 },
      { issuer_id: 'iss-local', ca_id: 'ca-1234abcd', part: 3 },
    ]);
  });

  it('takes a small CRL in one request', async () => {
    const { ask, requests } = fakeService(300, () => crl(1, der.subarray(0, 100)));
    const fetched = await readCrlInParts(ask, { issuer_id: 'iss-local', ca_id: 'ca-1234abcd' });
    expect(fetched.der.equals(der.subarray(0, 100))).toBe(true);
    expect(requests).toEqual([{ issuer_id: 'iss-local', ca_id: 'ca-1234abcd', part: 0 }]);
  });

  it('starts again from part 0 when a new CRL was stored between two parts', async () => {
    const newer = Buffer.concat([der, Buffer.from('more entries')]);
    let asked = 0;
    const { ask, requests } = fakeService(300, () => (++asked <= 2 ? crl(7, der) : crl(8, newer)));
    const fetched = await readCrlInParts(ask, { issuer_id: 'iss-local' });
    expect(fetched.der.equals(newer)).toBe(true);
    expect(fetched.document.crl_number).toBe('8');
    expect(requests.map((r) => r.part)).toEqual([0, 1, 2, 0, 1, 2, 3]);
  });

  it('gives up with 500 when the CRL changes on every attempt', async () => {
    let n = 0;
    const { ask, requests } = fakeService(300, () => crl(++n, der));
    await expect(readCrlInParts(ask, { issuer_id: 'iss-local' })).rejects.toMatchObject({
      code: ErrorCode.Internal,
    });
    expect(requests.filter((r) => r.part === 0)).toHaveLength(CRL_READ_ATTEMPTS);
  });

  it('asks for the whole CRL from a service that does not know `part` (a rolling upgrade)', async () => {
    const requests: GetCrlRequest[] = [];
    const ask: AskForCrl = async (request: GetCrlRequest): Promise<CrlDocument> => {
      requests.push(request);
      if ('part' in request) {
        throw CertlaneError.validation([{ field: 'part', message: 'part is not a known field' }]);
      }
      return {
        issuer_id: 'iss-local',
        ca_id: 'ca-1234abcd',
        crl_number: '3',
        this_update: '2026-01-01T00:00:00.000Z',
        next_update: '2026-01-02T00:00:00.000Z',
        crl_base64: der.toString('base64'),
      };
    };
    const fetched = await readCrlInParts(ask, { issuer_id: 'iss-local' });
    expect(fetched.der.equals(der)).toBe(true);
    expect(requests).toEqual([{ issuer_id: 'iss-local', part: 0 }, { issuer_id: 'iss-local' }]);
  });

  it("passes on the service's errors (404, 501)", async () => {
    const ask: AskForCrl = async () => {
      throw new CertlaneError(ErrorCode.NotImplemented, 'issuer iss-vault has no CRL support');
    };
    await expect(readCrlInParts(ask, { issuer_id: 'iss-vault' })).rejects.toMatchObject({
      code: ErrorCode.NotImplemented,
    });
  });
});
