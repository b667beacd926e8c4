// `npm run test:e2e`: the whole system as separate processes over real NATS and Postgres,
// driven through HTTPS with curl and openssl like a user would.
const preset = require('../../jest.preset.js');

module.exports = {
  ...preset,
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/../../libs/testing/src/global-setup.js',
  globalTeardown: '<rootDir>/../../libs/testing/src/global-teardown.js',
  maxWorkers: 1,
  testTimeout: 60000,
};
