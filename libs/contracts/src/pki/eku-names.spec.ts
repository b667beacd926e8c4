import { issuedEkus } from './eku-names';

describe('issuedEkus', () => {
  it("leaves the issuer's default when the profile allows any EKU", () => {
    expect(issuedEkus(null, ['codeSigning'])).toBeUndefined();
    expect(issuedEkus({ allowed_ekus: [] }, undefined)).toBeUndefined();
  });

  it('takes what the CSR asked for among the allowed ones', () => {
    expect(issuedEkus({ allowed_ekus: ['serverAuth', 'codeSigning'] }, ['codeSigning'])).toEqual([
      'codeSigning',
    ]);
  });

  it('narrows the default to the allowed ones when the CSR asks for none, else takes the allowed ones', () => {
    expect(issuedEkus({ allowed_ekus: ['clientAuth', 'codeSigning'] }, undefined)).toEqual(['clientAuth']);
    expect(issuedEkus({ allowed_ekus: ['emailProtection', 'codeSigning'] }, [])).toEqual([
      'emailProtection',
      'codeSigning',
    ]);
  });
});
