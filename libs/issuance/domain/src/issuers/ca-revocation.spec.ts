import { caRevocationRefusal, RevocableCa } from './ca-revocation';

const child: RevocableCa = {
  id: 'ca-child',
  status: 'active',
  issuer_id: 'iss-local',
  parent_id: 'ca-root',
  serial_hex: '0a1b',
};

describe('caRevocationRefusal', () => {
  it('lets an active child CA be revoked', () => {
    expect(caRevocationRefusal(child)).toBeNull();
  });

  it('lets a retired child CA be revoked (retiring stops issuing; revoking withdraws trust)', () => {
    expect(caRevocationRefusal({ ...child, status: 'retired' })).toBeNull();
  });

  it('refuses a CA already revoked: a revocation is final and recorded once', () => {
    expect(caRevocationRefusal({ ...child, status: 'revoked' })).toMatch(/already revoked/);
  });

  it('refuses a pending CA: no certificate exists yet', () => {
    expect(caRevocationRefusal({ ...child, status: 'pending', serial_hex: null })).toMatch(/pending/);
  });

  it('refuses a root or a sub-CA of an external root: no parent here lists it on a CRL', () => {
    expect(caRevocationRefusal({ ...child, parent_id: null })).toMatch(/no parent here/);
  });

  it('refuses a CA without a serial', () => {
    expect(caRevocationRefusal({ ...child, serial_hex: null })).toMatch(/no serial/);
  });

  it('refuses a CA of no issuer: its serial is in no register', () => {
    expect(caRevocationRefusal({ ...child, issuer_id: null })).toMatch(/no issuer/);
  });
});
