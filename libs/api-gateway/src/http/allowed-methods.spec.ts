import { AllowedMethods } from './allowed-methods';

const routes = [
  { method: 'GET', path: '/api/v1/renewal-policies' },
  { method: 'POST', path: '/api/v1/renewal-policies' },
  { method: 'GET', path: '/api/v1/renewal-policies/:id' },
  { method: 'PUT', path: '/api/v1/renewal-policies/:id' },
  { method: 'DELETE', path: '/api/v1/renewal-policies/:id' },
  { method: 'GET', path: '/api/v1/admin/est/profiles' },
  { method: 'POST', path: '/api/v1/admin/est/reload' },
];

describe('AllowedMethods', () => {
  const allowed = new AllowedMethods(routes);

  it('lets allowed methods (and HEAD where GET is served) through', () => {
    expect(allowed.refuse('GET', '/api/v1/renewal-policies')).toBeNull();
    expect(allowed.refuse('HEAD', '/api/v1/renewal-policies/rp-x')).toBeNull();
    expect(allowed.refuse('DELETE', '/api/v1/renewal-policies/rp-x?force=1')).toBeNull();
  });

  it('refuses a wrong method on a known path with the methods it allows', () => {
    expect(allowed.refuse('PATCH', '/api/v1/renewal-policies/rp-x')).toEqual([
      'DELETE',
      'GET',
      'HEAD',
      'PUT',
    ]);
    expect(allowed.refuse('DELETE', '/api/v1/renewal-policies')).toEqual(['GET', 'HEAD', 'POST']);
  });

  it('leaves unknown paths to routing (404)', () => {
    expect(allowed.refuse('PATCH', '/api/v1/nothing-here')).toBeNull();
    expect(allowed.refuse('GET', '/api/v1/renewal-policies/a/b')).toBeNull();
  });

  it('refuses every method but GET and POST under /api/v1/admin/, known path or not', () => {
    expect(allowed.refuse('PUT', '/api/v1/admin/est/profiles')).toEqual(['GET', 'HEAD']);
    expect(allowed.refuse('PUT', '/api/v1/admin/nothing-here')).toEqual(['GET', 'HEAD', 'POST']);
    expect(allowed.refuse('DELETE', '/api/v1/admin/scep/profiles')).toEqual(['GET', 'HEAD', 'POST']);
    expect(allowed.refuse('POST', '/api/v1/admin/est/reload-trust')).toBeNull();
  });

  it('refuses GET on a POST-only admin path (and POST on a GET-only one) with what the path serves', () => {
    expect(allowed.refuse('GET', '/api/v1/admin/est/reload')).toEqual(['POST']);
    expect(allowed.refuse('POST', '/api/v1/admin/est/profiles')).toEqual(['GET', 'HEAD']);
    expect(allowed.refuse('PUT', '/api/v1/admin/est/reload')).toEqual(['POST']);
  });
});
