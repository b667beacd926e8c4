import { returnPath } from './return-path';

const ORIGIN = 'https://certlane.example';

describe('returnPath (where sign-in goes back to)', () => {
  it('keeps a path of this app with its query and fragment', () => {
    expect(returnPath('/certificates?status=Active', ORIGIN)).toBe('/certificates?status=Active');
    expect(returnPath('/jobs#top', ORIGIN)).toBe('/jobs#top');
    expect(returnPath('/certificates?common_name=a%2Fb', ORIGIN)).toBe('/certificates?common_name=a%2Fb');
  });

  it('goes home for anything naming another host, however it is spelled', () => {
    for (const from of [
      '//evil.example/steal',
      '/\\evil.example',
      '/%2F%2Fevil.example',
      '/%5Cevil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      'evil.example',
      '/%E0%A4%A',
      '',
      undefined,
      42,
    ]) {
      expect([from, returnPath(from, ORIGIN)]).toEqual([from, '/']);
    }
  });
});
