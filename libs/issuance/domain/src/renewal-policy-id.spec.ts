import { nextFreeId, renewalPolicyId, slugify } from './renewal-policy-id';

describe(slugify.name, () => {
  it.each([
    ['Web TLS', 'web-tls'],
    ['web-tls', 'web-tls'],
    ['WEB   tls', 'web-tls'],
    ['Web TLS: internal / external!!', 'web-tls-internal-external'],
    ['a__b..c', 'a-b-c'],
    ['  --Edge servers--  ', 'edge-servers'],
    ['!!!Leading and trailing???', 'leading-and-trailing'],
    ['Crème brûlée à Zürich', 'creme-brulee-a-zurich'],
    ['Ñandú ÅÉÎÕÜ', 'nandu-aeiou'],
    ['ﬁle ①', 'file-1'],
    ['Policy 2024', 'policy-2024'],
    ['日本語', ''],
    ['', ''],
    ['---', ''],
  ])('turns %j into %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('caps long names at 120 characters', () => {
    const slug = slugify('a'.repeat(300));
    expect(slug).toBe('a'.repeat(120));
  });

  it('does not end a capped slug with a dash', () => {
    const slug = slugify(`${'a'.repeat(119)} tail`);
    expect(slug).toBe('a'.repeat(119));
    expect(slug.endsWith('-')).toBe(false);
  });

  it('only ever produces lower-case letters, digits and single inner dashes', () => {
    for (const name of ['Ünïcödé -- Naïve_Café', 'x'.repeat(200) + '!!' + 'y', '  A  B  ', 'Ⅻ & ß']) {
      const slug = slugify(name);
      expect(slug).toMatch(/^([a-z0-9]+(-[a-z0-9]+)*)?$/);
      expect(slug.length).toBeLessThanOrEqual(120);
    }
  });
});

describe(renewalPolicyId.name, () => {
  it('prefixes the slug with rp-', () => {
    expect(renewalPolicyId('Web TLS')).toBe('rp-web-tls');
  });

  it.each(['', '   ', '!!!', '日本語'])('falls back to rp-policy when %j has no slug', (name) => {
    expect(renewalPolicyId(name)).toBe('rp-policy');
  });

  it('gives names differing only in case and punctuation the same id', () => {
    expect(renewalPolicyId('Web TLS')).toBe(renewalPolicyId('web-tls'));
  });
});

describe(nextFreeId.name, () => {
  it('keeps the base id while it is free', () => {
    expect(nextFreeId('rp-web', new Set())).toBe('rp-web');
    expect(nextFreeId('rp-web', new Set(['rp-web-2', 'rp-other']))).toBe('rp-web');
  });

  it('suffixes -2 for the second holder of a slug and -3 for the third', () => {
    expect(nextFreeId('rp-web', new Set(['rp-web']))).toBe('rp-web-2');
    expect(nextFreeId('rp-web', new Set(['rp-web', 'rp-web-2']))).toBe('rp-web-3');
  });

  it('takes the first free suffix, filling gaps', () => {
    expect(nextFreeId('rp-web', new Set(['rp-web', 'rp-web-3', 'rp-web-4']))).toBe('rp-web-2');
    expect(nextFreeId('rp-web', new Set(['rp-web', 'rp-web-2', 'rp-web-4']))).toBe('rp-web-3');
  });

  it('is not fooled by ids that merely share the prefix', () => {
    expect(nextFreeId('rp-web', new Set(['rp-web', 'rp-web-tls', 'rp-webs', 'rp-web-2-2']))).toBe('rp-web-2');
  });

  it('never returns a taken id', () => {
    const taken = new Set(['rp-x', ...Array.from({ length: 50 }, (_, i) => `rp-x-${i + 2}`)]);
    const id = nextFreeId('rp-x', taken);
    expect(taken.has(id)).toBe(false);
    expect(id).toBe('rp-x-52');
  });
});
