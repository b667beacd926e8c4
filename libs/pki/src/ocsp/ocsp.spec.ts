import { OCSPResponse, BasicOCSPResponse } from '@peculiar/asn1-ocsp';
import { AsnConvert } from '@peculiar/asn1-schema';
import { ocspResponderTemplate } from '../ca';
import { Certificate, certificatePem, parseCertificate } from '../certificate';
import { parseCsr } from '../csr';
import { PkiError } from '../errors';
import { SoftwareSigner } from '../keys/key-provider';
import { templateFromCsr } from '../profile';
import { TestPki, createTestPki, provider } from '../testing/fixtures';
import { KEY_ARGS, OpenSslWorkspace } from '../testing/openssl';
import { ocspCacheHeaders } from './http';
import {
  createOcspRequest,
  decodeOcspGetPath,
  encodeOcspGetPath,
  isOcspRequestContentType,
  parseOcspRequest,
} from './request';
import { OcspResponder, ocspErrorResponse } from './response';

let ws: OpenSslWorkspace;
let pki: TestPki;
let leaf: Certificate;
let responder: OcspResponder;
let delegatedSigner: SoftwareSigner;
let delegatedCert: Certificate;

const now = new Date();
now.setUTCMilliseconds(0);
const revokedAt = new Date(now.getTime() - 3600_000);

beforeAll(async () => {
  ws = new OpenSslWorkspace();
  pki = await createTestPki();
  const { csrPem } = ws.csr('leaf', [...KEY_ARGS['P-256']], '/CN=ocsp-leaf.example.test');
  leaf = parseCertificate((await pki.ca.issue(templateFromCsr(parseCsr(csrPem)))).der);
  ws.write('leaf.pem', certificatePem(leaf));
  ws.write('root.pem', certificatePem(pki.root));
  ws.write('intermediate.pem', certificatePem(pki.intermediate));
  ws.write('chain.pem', certificatePem(pki.intermediate) + certificatePem(pki.root));
  responder = new OcspResponder({ issuer: pki.intermediate, signer: pki.intermediateSigner });
  delegatedSigner = (await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' })).signer;
  delegatedCert = parseCertificate(
    (
      await pki.ca.issue(
        ocspResponderTemplate({
          subject: [['CN', 'Test OCSP Responder']],
          publicKey: delegatedSigner.publicKey,
          notBefore: new Date(now.getTime() - 60_000),
          notAfter: new Date(now.getTime() + 7 * 86_400_000),
        }),
      )
    ).der,
  );
  ws.write('responder.pem', certificatePem(delegatedCert));
  // What `openssl ocsp` sends: SHA-1 CertID and a 16-byte nonce.
  ws.ok(['ocsp', '-issuer', 'intermediate.pem', '-cert', 'leaf.pem', '-reqout', 'req.der']);
  ws.ok([
    'ocsp',
    '-issuer',
    'intermediate.pem',
    '-sha256',
    '-cert',
    'leaf.pem',
    '-no_nonce',
    '-reqout',
    'req-sha256.der',
  ]);
});
afterAll(() => ws.remove());

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof PkiError) return error.code;
    throw error;
  }
  return undefined;
}

describe(parseOcspRequest.name, () => {
  it('reads the CertID and nonce of an openssl request', () => {
    const request = parseOcspRequest(ws.read('req.der'));
    expect(request.certIds).toHaveLength(1);
    expect(request.certIds[0].hash).toBe('sha1');
    expect(request.certIds[0].serialNumber).toBe(leaf.serialNumber);
    expect(request.nonce).toHaveLength(16);
    expect(request.signed).toBe(false);
    expect(responder.serves(request.certIds[0])).toBe(true);
    const text = ws.ok(['ocsp', '-reqin', 'req.der', '-req_text']).stdout;
    expect(text).toContain(request.nonce!.toString('hex').toUpperCase());
  });

  it('matches SHA-256 CertIDs too', () => {
    const request = parseOcspRequest(ws.read('req-sha256.der'));
    expect(request.certIds[0].hash).toBe('sha256');
    expect(request.nonce).toBeUndefined();
    expect(responder.serves(request.certIds[0])).toBe(true);
  });

  it('does not serve CertIDs of another issuer', async () => {
    const other = await createTestPki();
    const foreign = new OcspResponder({ issuer: other.intermediate, signer: other.intermediateSigner });
    expect(foreign.serves(parseOcspRequest(ws.read('req.der')).certIds[0])).toBe(false);
  });

  it.each([
    ['truncated', (der: Buffer) => der.subarray(0, der.length - 3), 'der_truncated'],
    ['with trailing bytes', (der: Buffer) => Buffer.concat([der, Buffer.of(0)]), 'der_invalid'],
    ['oversize', () => Buffer.alloc(20_000, 0x30), 'input_too_large'],
    ['a SET instead of a SEQUENCE', () => Buffer.from('3100', 'hex'), 'der_invalid'],
    ['text', () => Buffer.from('hello'), 'der_truncated'],
  ] as const)('refuses a request %s', (_label, mutate, expected) => {
    expect(code(() => parseOcspRequest(mutate(ws.read('req.der'))))).toBe(expected);
  });

  it('refuses an empty request list, too many certificates and oversized nonces', () => {
    const id = responder.certId(leaf.serialNumber);
    expect(code(() => parseOcspRequest(createOcspRequest([])))).toBe('ocsp_request_invalid');
    expect(code(() => parseOcspRequest(createOcspRequest(Array(33).fill(id))))).toBe('ocsp_request_invalid');
    expect(parseOcspRequest(createOcspRequest(Array(32).fill(id))).certIds).toHaveLength(32);
    expect(code(() => parseOcspRequest(createOcspRequest([id], { nonce: Buffer.alloc(33, 1) })))).toBe(
      'ocsp_request_invalid',
    );
    expect(code(() => parseOcspRequest(createOcspRequest([id], { nonce: Buffer.alloc(0) })))).toBe(
      'ocsp_request_invalid',
    );
    expect(parseOcspRequest(createOcspRequest([id], { nonce: Buffer.alloc(32, 1) })).nonce).toEqual(
      Buffer.alloc(32, 1),
    );
  });

  it('fails every truncation and corruption with a PkiError', () => {
    const der = ws.read('req.der');
    for (let cut = 0; cut < der.length; cut++)
      expect(code(() => parseOcspRequest(der.subarray(0, cut)))).toBeDefined();
    for (let i = 0; i < der.length; i++) {
      for (const value of [0x00, 0x80, 0xff]) {
        const corrupted = Buffer.from(der);
        corrupted[i] = value;
        expect(() => code(() => parseOcspRequest(corrupted))).not.toThrow();
      }
    }
  });
});

describe('OCSP GET and POST forms', () => {
  it('round-trips the GET path in every encoding clients use', () => {
    const der = ws.read('req.der');
    const base64 = der.toString('base64');
    expect(decodeOcspGetPath(encodeOcspGetPath(der))).toEqual(der);
    expect(decodeOcspGetPath(base64)).toEqual(der); // raw '/', '+', '='
    expect(decodeOcspGetPath(`/${base64}`)).toEqual(der);
    expect(decodeOcspGetPath(der.toString('base64url'))).toEqual(der); // RFC 4648 URL-safe, no padding
    expect(decodeOcspGetPath(encodeURIComponent(base64).replace(/%2B/g, '%2b'))).toEqual(der);
  });

  it('refuses GET paths that are not base64 or too long', () => {
    expect(code(() => decodeOcspGetPath('%E0%A4%A'))).toBe('pem_invalid');
    expect(code(() => decodeOcspGetPath('not*base64'))).toBe('pem_invalid');
    expect(code(() => decodeOcspGetPath('A'.repeat(200_000)))).toBe('input_too_large');
  });

  it('recognizes the POST media type', () => {
    expect(isOcspRequestContentType('application/ocsp-request')).toBe(true);
    expect(isOcspRequestContentType('Application/OCSP-Request; charset=binary')).toBe(true);
    expect(isOcspRequestContentType('application/octet-stream')).toBe(false);
    expect(isOcspRequestContentType(undefined)).toBe(false);
  });
});

describe(OcspResponder.name, () => {
  async function answer(status: Parameters<OcspResponder['respondTo']>[1], r = responder, file = 'resp.der') {
    const request = parseOcspRequest(ws.read('req.der'));
    ws.write(file, await r.respondTo(request, status, { producedAt: now }));
    // The client trusts the root and knows the intermediate that issued the certificate it asks about.
    // (-issuer would make openssl trust the issuer outright, OCSP_TRUSTOTHER; -verify_other does not.)
    return ws.run([
      'ocsp',
      '-reqin',
      'req.der',
      '-respin',
      file,
      '-resp_text',
      '-CAfile',
      'root.pem',
      '-verify_other',
      'intermediate.pem',
    ]);
  }

  it('answers good, signed by the CA, with the nonce echoed (openssl verifies)', async () => {
    const result = await answer(() => ({ status: 'good' }));
    expect(result.output).toContain('Response verify OK');
    expect(result.output).not.toMatch(/WARNING: no nonce|Nonce Verify error/);
    expect(result.stdout).toContain('OCSP Response Status: successful (0x0)');
    expect(result.stdout).toContain('Response Type: Basic OCSP Response');
    expect(result.stdout).toMatch(/Responder Id: [0-9A-F]{40}/);
    expect(result.stdout).toContain('Cert Status: good');
    expect(result.stdout).toContain('OCSP Nonce');
    expect(result.status).toBe(0);
  });

  it('answers revoked with the reason and the revocation time', async () => {
    const result = await answer(() => ({ status: 'revoked', revokedAt, reason: 'keyCompromise' }));
    expect(result.output).toContain('Response verify OK');
    expect(result.stdout).toContain('Cert Status: revoked');
    const expected = revokedAt
      .toUTCString()
      .replace(
        /^\w+, (\d+) (\w+) (\d+) ([\d:]+) GMT$/,
        (_m, d, mo, y, t) => `${mo} ${String(Number(d)).padStart(2, ' ')} ${t} ${y} GMT`,
      );
    expect(result.stdout).toContain(`Revocation Time: ${expected}`);
    expect(result.stdout).toContain('Revocation Reason: keyCompromise (0x1)');
  });

  it('answers revoked without a reason (reason unspecified is left out)', async () => {
    const result = await answer(() => ({ status: 'revoked', revokedAt }));
    expect(result.stdout).toContain('Cert Status: revoked');
    expect(result.stdout).not.toContain('Revocation Reason');
  });

  it('answers unknown', async () => {
    const result = await answer(() => ({ status: 'unknown' }));
    expect(result.output).toContain('Response verify OK');
    expect(result.stdout).toContain('Cert Status: unknown');
  });

  it('prints the per-certificate summary openssl shows a client (-issuer/-cert, thisUpdate/nextUpdate)', async () => {
    const request = parseOcspRequest(ws.read('req.der'));
    ws.write(
      'summary.der',
      await responder.respondTo(request, () => ({ status: 'revoked', revokedAt, reason: 'superseded' }), {
        producedAt: now,
      }),
    );
    const result = ws.run([
      'ocsp',
      '-issuer',
      'intermediate.pem',
      '-cert',
      'leaf.pem',
      '-no_nonce',
      '-respin',
      'summary.der',
      '-CAfile',
      'chain.pem',
    ]);
    expect(result.output).toContain('Response verify OK');
    expect(result.stdout).toMatch(
      /leaf.pem: revoked\s+This Update: .*\s+Next Update: .*\s+Reason: superseded\s+Revocation Time: /,
    );
  });

  it('fails openssl verification against the wrong trust anchor (the check can fail)', async () => {
    const other = await createTestPki();
    ws.write('other-root.pem', certificatePem(other.root));
    const request = parseOcspRequest(ws.read('req.der'));
    ws.write('resp-wrong.der', await responder.respondTo(request, () => ({ status: 'good' })));
    const result = ws.run([
      'ocsp',
      '-reqin',
      'req.der',
      '-respin',
      'resp-wrong.der',
      '-CAfile',
      'other-root.pem',
      '-verify_other',
      'intermediate.pem',
    ]);
    expect(result.output).toMatch(/Response Verify Failure/);
  });

  it('signs through a delegated responder certificate included in the response', async () => {
    const delegated = new OcspResponder({
      issuer: pki.intermediate,
      signer: delegatedSigner,
      responderCertificate: delegatedCert,
    });
    const result = await answer(() => ({ status: 'good' }), delegated, 'resp-delegated.der');
    expect(result.output).toContain('Response verify OK');
    expect(result.stdout).toContain('Cert Status: good');
    // The responder certificate travels in the response's certs.
    expect(result.stdout).toMatch(/Certificate:[\s\S]*Subject: CN=Test OCSP Responder[\s\S]*OCSP Signing/);
  });

  it('verifies with -verify_other when the delegated certificate is not in the response', async () => {
    const delegated = new OcspResponder({
      issuer: pki.intermediate,
      signer: delegatedSigner,
      responderCertificate: delegatedCert,
      includeResponderCertificate: false,
    });
    const request = parseOcspRequest(ws.read('req.der'));
    ws.write('resp-bare.der', await delegated.respondTo(request, () => ({ status: 'good' })));
    const without = ws.run(['ocsp', '-reqin', 'req.der', '-respin', 'resp-bare.der', '-CAfile', 'chain.pem']);
    expect(without.output).toMatch(/Response Verify Failure/);
    const withOther = ws.run([
      'ocsp',
      '-reqin',
      'req.der',
      '-respin',
      'resp-bare.der',
      '-CAfile',
      'chain.pem',
      '-verify_other',
      'responder.pem',
    ]);
    expect(withOther.output).toContain('Response verify OK');
  });

  it('refuses a delegated certificate without OCSPSigning or from another CA, and a mismatched key', async () => {
    expect(
      () =>
        new OcspResponder({
          issuer: pki.intermediate,
          signer: pki.intermediateSigner,
          responderCertificate: leaf,
        }),
    ).toThrow(expect.objectContaining({ code: 'issuer_invalid' }));
    const other = await createTestPki();
    expect(
      () =>
        new OcspResponder({
          issuer: other.intermediate,
          signer: delegatedSigner,
          responderCertificate: delegatedCert,
        }),
    ).toThrow(expect.objectContaining({ code: 'issuer_invalid' }));
    expect(
      () =>
        new OcspResponder({
          issuer: pki.intermediate,
          signer: pki.rootSigner,
          responderCertificate: delegatedCert,
        }),
    ).toThrow(expect.objectContaining({ code: 'key_mismatch' }));
    expect(() => new OcspResponder({ issuer: pki.intermediate, signer: pki.rootSigner })).toThrow(
      expect.objectContaining({ code: 'key_mismatch' }),
    );
  });

  it('pre-signs a response for a serial without a request (for GET caching)', async () => {
    const der = await responder.respond(
      [{ certId: responder.certId(leaf.serialNumber), status: { status: 'good' } }],
      { producedAt: now },
    );
    ws.write('presigned.der', der);
    const result = ws.run([
      'ocsp',
      '-issuer',
      'intermediate.pem',
      '-serial',
      `0x${leaf.serialNumber}`,
      '-no_nonce',
      '-respin',
      'presigned.der',
      '-CAfile',
      'chain.pem',
    ]);
    expect(result.output).toContain('Response verify OK');
    expect(result.stdout).toMatch(/0x[0-9a-fA-F]+: good/);
  });

  it('answers a request about another issuer with unauthorized, unsigned', async () => {
    const other = await createTestPki();
    const foreign = new OcspResponder({ issuer: other.intermediate, signer: other.intermediateSigner });
    const der = await foreign.respondTo(parseOcspRequest(ws.read('req.der')), () => ({ status: 'good' }));
    expect(der).toEqual(ocspErrorResponse('unauthorized'));
    ws.write('unauthorized.der', der);
    expect(ws.run(['ocsp', '-respin', 'unauthorized.der', '-resp_text', '-noverify']).output).toMatch(
      /Responder Error: unauthorized \(6\)/,
    );
  });

  it('builds every error status as openssl names it', () => {
    for (const [status, text] of [
      ['malformedRequest', 'malformedrequest (1)'],
      ['internalError', 'internalerror (2)'],
      ['tryLater', 'trylater (3)'],
      ['sigRequired', 'sigrequired (5)'],
      ['unauthorized', 'unauthorized (6)'],
    ] as const) {
      ws.write(`${status}.der`, ocspErrorResponse(status));
      expect(ws.run(['ocsp', '-respin', `${status}.der`, '-resp_text', '-noverify']).output).toContain(
        `Responder Error: ${text}`,
      );
    }
  });

  it('answers several certificates in one response, each with its own status', async () => {
    const ids = [
      responder.certId(leaf.serialNumber),
      responder.certId('0a'),
      responder.certId('0b', 'sha256'),
    ];
    const request = parseOcspRequest(createOcspRequest(ids, { nonce: Buffer.alloc(8, 7) }));
    const statuses: Record<string, Parameters<OcspResponder['respond']>[0][number]['status']> = {
      [leaf.serialNumber]: { status: 'good' },
      '0a': { status: 'revoked', revokedAt, reason: 'cessationOfOperation' },
      '0b': { status: 'unknown' },
    };
    const der = await responder.respondTo(request, (serial) => statuses[serial]);
    const basic = AsnConvert.parse(
      AsnConvert.parse(der, OCSPResponse).responseBytes!.response.buffer,
      BasicOCSPResponse,
    );
    expect(
      basic.tbsResponseData.responses.map(
        (r) => Object.keys(r.certStatus).filter((k) => (r.certStatus as never)[k] !== undefined)[0],
      ),
    ).toEqual(['good', 'revoked', 'unknown']);
    ws.write('multi.der', der);
    ws.write('multi-req.der', request.der);
    const result = ws.run([
      'ocsp',
      '-reqin',
      'multi-req.der',
      '-respin',
      'multi.der',
      '-resp_text',
      '-CAfile',
      'root.pem',
      '-verify_other',
      'intermediate.pem',
    ]);
    expect(result.output).toContain('Response verify OK');
    expect(result.stdout).toContain('Revocation Reason: cessationOfOperation (0x5)');
  });

  it('gives RFC 5019 cache headers that end at nextUpdate', () => {
    const thisUpdate = new Date('2030-01-01T00:00:00Z');
    const headers = ocspCacheHeaders(
      Buffer.from('x'),
      { producedAt: thisUpdate, thisUpdate, nextUpdate: new Date('2030-01-02T00:00:00Z') },
      thisUpdate,
    );
    expect(headers['cache-control']).toBe('max-age=86400, public, no-transform, must-revalidate');
    expect(headers.expires).toBe('Wed, 02 Jan 2030 00:00:00 GMT');
    expect(headers['last-modified']).toBe('Tue, 01 Jan 2030 00:00:00 GMT');
    expect(headers.etag).toMatch(/^"[0-9a-f]{40}"$/);
  });
});
