// `npm test`: unit (*.spec.ts) and integration (*.int-spec.ts) tests of every project.
// Integration tests use real Postgres and NATS (see libs/testing). The e2e smoke has its own config.
const preset = require('./jest.preset.js');

module.exports = {
  ...preset,
  rootDir: __dirname,
  roots: ['<rootDir>/apps', '<rootDir>/libs'],
  testMatch: ['**/*.spec.ts', '**/*.int-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/apps/e2e/'],
  globalSetup: '<rootDir>/libs/testing/src/global-setup.js',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown.js',
  maxWorkers: 2,
  testTimeout: 30000,
};
