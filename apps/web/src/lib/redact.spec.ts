import { buildTree, REDACTED, redactSecrets } from './redact';

describe('redactSecrets (spec 2.12)', () => {
  it('replaces every secret-named value at any depth and keeps the rest', () => {
    expect(
      redactSecrets({
        name: 'vault',
        config: { url: 'https://vault', token: 's.abc', auth: { client_secret: 'x', password: 'p' } },
        list: [{ api_key: 'k', host: 'h' }],
        key_algorithm: 'ECDSA-P256',
        empty_password: '',
      }),
    ).toEqual({
      name: 'vault',
      config: {
        url: 'https://vault',
        token: REDACTED,
        auth: { client_secret: REDACTED, password: REDACTED },
      },
      list: [{ api_key: REDACTED, host: 'h' }],
      key_algorithm: 'ECDSA-P256',
      empty_password: '',
    });
  });
});

describe('buildTree', () => {
  it('nests children under their parent and keeps orphans as roots', () => {
    const tree = buildTree(
      [
        { id: 'root', parent_id: null },
        { id: 'child', parent_id: 'root' },
        { id: 'grandchild', parent_id: 'child' },
        { id: 'orphan', parent_id: 'elsewhere' },
      ],
      'parent_id',
    );
    expect(tree.map((n) => n.row.id)).toEqual(['root', 'orphan']);
    expect(tree[0].children[0].row.id).toBe('child');
    expect(tree[0].children[0].children[0].row.id).toBe('grandchild');
  });
});
