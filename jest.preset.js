// Shared Jest settings for every project: SWC transform (with decorator metadata, as the
// build uses) and the workspace path aliases, read from tsconfig.base.json so they cannot drift.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`,
    path.join(__dirname, target),
  ]),
);

const swcConfig = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

// The web GUI's components (apps/web, .tsx), for their render tests: React's automatic runtime.
const swcTsxConfig = {
  jsc: {
    parser: { syntax: 'typescript', tsx: true },
    transform: { react: { runtime: 'automatic' } },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcConfig],
    '^.+\\.tsx$': ['@swc/jest', swcTsxConfig],
    // ESM-only CMS libraries (pkijs and its dependencies, for serverkeygen): compiled to CommonJS.
    '^.+/node_modules/(pkijs|asn1js|bytestreamjs|pvtsutils|pvutils|@noble/hashes|@peculiar/utils)/.+\\.m?js$':
      ['@swc/jest', { ...swcConfig, jsc: { ...swcConfig.jsc, parser: { syntax: 'ecmascript' } } }],
  },
  transformIgnorePatterns: [
    '/node_modules/(?!(pkijs|asn1js|bytestreamjs|pvtsutils|pvutils|@noble/hashes|@peculiar/utils)/)',
  ],
  moduleFileExtensions: ['ts', 'tsx', 'js', 'json'],
  moduleNameMapper: {
    ...moduleNameMapper,
    // Style sheets imported by the GUI's components mean nothing to a render test.
    '\\.css$': path.join(__dirname, 'apps/web/test/style-stub.js'),
  },
  setupFiles: [path.join(__dirname, 'libs/testing/src/setup-env.js')],
};
