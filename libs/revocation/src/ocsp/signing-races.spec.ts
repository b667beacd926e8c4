import { SigningRaces } from './signing-races';

describe(SigningRaces.name, () => {
  it('tells a signature that its own serial was revoked while it was under way', () => {
    const races = new SigningRaces();
    const end = races.start('iss s1');
    races.revoked('iss s1');
    expect(end()).toBe(true);
  });

  it('does not void a signature for the revocation of another serial', () => {
    const races = new SigningRaces();
    const end = races.start('iss s1');
    races.revoked('iss s2');
    races.revoked('other s1');
    expect(end()).toBe(false);
  });

  it('does not void a signature that started after the revocation', () => {
    const races = new SigningRaces();
    const first = races.start('iss s1');
    races.revoked('iss s1');
    const second = races.start('iss s1');
    expect(second()).toBe(false);
    expect(first()).toBe(true);
  });

  it('forgets a serial once its last signature ended, failed ones included (memory follows the signatures under way)', () => {
    const races = new SigningRaces();
    const ends = [races.start('iss s1'), races.start('iss s1'), races.start('iss s2')];
    expect(races.size).toBe(2);
    ends[0]();
    ends[0]();
    expect(races.size).toBe(2);
    ends[1]();
    ends[2]();
    expect(races.size).toBe(0);
    // A revocation of a serial nobody signs leaves nothing behind.
    races.revoked('iss s3');
    expect(races.size).toBe(0);
  });
});
