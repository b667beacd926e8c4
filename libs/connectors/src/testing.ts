// Test-only entry point (@certlane/connectors/testing): the real-server helpers of the connector
// integration tests, reused by the agent's end-to-end tests against real servers.
export {
  freePort,
  hasBinary,
  keytoolEntrySha256,
  opensslFingerprint,
  opensslServedFingerprint,
  startServer,
  waitUntil,
} from './targets/testing/servers';
export type { ServerProcess } from './targets/testing/servers';
export {
  caddyEnv,
  siteTargetConfig,
  writeApacheSite,
  writeCaddySite,
  writeDovecotSite,
  writeHaproxySite,
  writeNginxSite,
  writePostfixSite,
} from './targets/testing/server-sites';
export type { HaproxySite, ServerSite } from './targets/testing/server-sites';
export { writePlaceholderCertificate } from './targets/testing/test-certificates';
export { createThrowawayUser, startTestSshd } from './targets/testing/sshd';
export type { TestSshd } from './targets/testing/sshd';
