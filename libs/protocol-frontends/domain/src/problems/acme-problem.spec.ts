import { ACME_PROBLEM_TYPES, AcmeProblem, acmeNotFound, PROBLEM_CONTENT_TYPE } from './acme-problem';

describe('AcmeProblem', () => {
  it('answers with the RFC 8555 type URN, the detail and the status', () => {
    expect(new AcmeProblem('badNonce', 'the nonce was used').toDocument()).toEqual({
      type: 'urn:ietf:params:acme:error:badNonce',
      detail: 'the nonce was used',
      status: 400,
    });
    expect(PROBLEM_CONTENT_TYPE).toBe('application/problem+json');
  });

  it.each([
    ['rateLimited', 429],
    ['unauthorized', 403],
    ['orderNotReady', 403],
    ['serverInternal', 500],
    ['externalAccountRequired', 401],
  ] as const)('answers %s with %i', (type, status) => {
    expect(new AcmeProblem(type, 'x').status).toBe(status);
  });

  it('gives every type a status between 400 and 599', () => {
    for (const type of ACME_PROBLEM_TYPES) {
      const { status } = new AcmeProblem(type, 'x');
      expect(status >= 400 && status < 600).toBe(true);
    }
  });

  it('namespaces subproblems and lists the algorithms of a badSignatureAlgorithm', () => {
    const compound = new AcmeProblem('compound', 'two identifiers refused', {
      subproblems: [
        { type: 'rejectedIdentifier', detail: 'no', identifier: { type: 'dns', value: 'a.example' } },
      ],
    });
    expect(compound.toDocument().subproblems).toEqual([
      {
        type: 'urn:ietf:params:acme:error:rejectedIdentifier',
        detail: 'no',
        identifier: { type: 'dns', value: 'a.example' },
      },
    ]);
    const alg = new AcmeProblem('badSignatureAlgorithm', 'HS256 refused', { algorithms: ['ES256'] });
    expect(alg.toDocument().algorithms).toEqual(['ES256']);
  });

  it('answers a missing resource with malformed and 404', () => {
    expect(acmeNotFound('order').toDocument()).toEqual({
      type: 'urn:ietf:params:acme:error:malformed',
      detail: 'order not found',
      status: 404,
    });
  });
});
