// Lint rules, including the module boundaries of docs/architecture.md (section "Module boundaries"):
// a service reaches another service only through libs/contracts; clients never import service
// code; domain and contract libraries stay free of Nest, TypeORM and NATS.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const services = [
  'api-gateway',
  'auth',
  'issuance',
  'deployment-dispatch',
  'revocation',
  'protocol-frontends',
  'notifier',
  'health-monitor',
];
/** The issuance libraries (tag `issuance:<layer>`), lowest first: domain, data(-access), ca... */
const issuanceLayers = ['domain', 'data', 'ca', 'governance', 'inventory', 'jobs', 'service'];
const io = ['@nestjs/*', 'typeorm', '@nestjs/typeorm', 'nats', 'pg', 'express'];

/** Tests (and only tests) may also use the shared test harness, libs/testing. */
function boundaries({ tests }) {
  const withTesting = (tags) => (tests ? [...tags, 'type:testing'] : tags);
  return {
    enforceBuildableLibDependency: false,
    allow: [],
    banTransitiveDependencies: false,
    depConstraints: [
      ...services.map((s) => ({
        sourceTag: `scope:${s}`,
        onlyDependOnLibsWithTags: [`scope:${s}`, 'scope:shared'],
      })),
      { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
      {
        sourceTag: 'scope:client',
        onlyDependOnLibsWithTags: ['scope:client', 'scope:shared'],
        bannedExternalImports: io,
      },
      // Clients (the agent, the API client; the CLI, MCP server and GUI next) are built from
      // contracts and util libraries only: not libs/platform, which brings Nest, TypeORM and NATS.
      {
        sourceTag: 'scope:client',
        onlyDependOnLibsWithTags: withTesting(['type:contract', 'type:util']),
      },
      // The issuance service's libraries, lowest first (ADR 0050): each may use those below it.
      ...issuanceLayers.map((layer, index) => ({
        sourceTag: `issuance:${layer}`,
        onlyDependOnLibsWithTags: withTesting([
          'scope:shared',
          ...issuanceLayers.slice(0, index).map((lower) => `issuance:${lower}`),
        ]),
      })),
      { sourceTag: 'scope:quickstart', onlyDependOnLibsWithTags: ['*'] },
      { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared'] },
      {
        sourceTag: 'type:app',
        onlyDependOnLibsWithTags: withTesting([
          'type:feature',
          'type:platform',
          'type:contract',
          'type:util',
        ]),
      },
      { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:contract', 'type:testing', 'type:util'] },
      {
        sourceTag: 'type:feature',
        onlyDependOnLibsWithTags: withTesting([
          'type:feature',
          'type:data-access',
          'type:domain',
          'type:platform',
          'type:contract',
          'type:util',
        ]),
      },
      {
        sourceTag: 'type:data-access',
        onlyDependOnLibsWithTags: withTesting([
          'type:data-access',
          'type:domain',
          'type:platform',
          'type:contract',
          'type:util',
        ]),
      },
      {
        sourceTag: 'type:domain',
        onlyDependOnLibsWithTags: ['type:domain', 'type:contract', 'type:util'],
        bannedExternalImports: io,
      },
      {
        sourceTag: 'type:contract',
        onlyDependOnLibsWithTags: ['type:contract', 'type:util'],
        bannedExternalImports: io,
      },
      {
        sourceTag: 'type:platform',
        onlyDependOnLibsWithTags: withTesting(['type:platform', 'type:contract', 'type:util']),
      },
      {
        sourceTag: 'type:testing',
        onlyDependOnLibsWithTags: ['type:testing', 'type:platform', 'type:contract', 'type:util'],
      },
    ],
  };
}

export default [
  { ignores: ['**/dist', '**/node_modules', '**/coverage', '.nx/**', 'tmp/**'] },
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': ['error', boundaries({ tests: false })],
    },
  },
  {
    // An app's test helpers (apps/<app>/src/testing, apps/<app>/test) are test code: not built, not shipped.
    files: [
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/*.e2e-spec.ts',
      'apps/*/src/testing/**/*.ts',
      'apps/*/test/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@nx/enforce-module-boundaries': ['error', boundaries({ tests: true })],
    },
  },
  { files: ['**/*.js', '**/*.mjs', '**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
];
